package com.example.users;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.persistence.EntityManager;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;

public class UserDao {
    private final Connection conn;
    private final EntityManager em;
    private final JdbcTemplate jdbcTemplate;
    private final RowMapper<User> mapper;

    public UserDao(Connection conn, EntityManager em, JdbcTemplate jdbcTemplate, RowMapper<User> mapper) {
        this.conn = conn;
        this.em = em;
        this.jdbcTemplate = jdbcTemplate;
        this.mapper = mapper;
    }

    public void find(String name) throws SQLException {
        Statement stmt = conn.createStatement();
        // ruleid: sql-injection
        ResultSet rs = stmt.executeQuery("SELECT * FROM users WHERE name = '" + name + "'");
        // ok: sql-injection
        PreparedStatement ps = conn.prepareStatement("SELECT * FROM users WHERE name = ?");
        ps.setString(1, name);
        // ruleid: sql-injection
        List<?> users = em.createQuery(String.format("FROM User WHERE name = '%s'", name)).getResultList();
        // ruleid: sql-injection
        List<User> viaTemplate = jdbcTemplate.query("SELECT * FROM users WHERE name = '" + name + "'", mapper);
        // ok: sql-injection
        List<User> safe = jdbcTemplate.query("SELECT * FROM users WHERE name = ?", mapper, name);
        System.out.println(rs.next() + " " + users.size() + viaTemplate.size() + safe.size());
    }
}
