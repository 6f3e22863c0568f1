package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"

	"gorm.io/gorm"
)

type Store struct {
	db   *sql.DB
	gorm *gorm.DB
}

type User struct{ Name string }

func (s *Store) FindUser(ctx context.Context, r *http.Request) (*User, error) {
	name := r.URL.Query().Get("name")
	// ruleid: sql-injection
	rows, err := s.db.QueryContext(ctx, fmt.Sprintf("SELECT name FROM users WHERE name = '%s'", name))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	// ruleid: sql-injection
	row := s.db.QueryRow("SELECT name FROM users WHERE name = '" + name + "'")
	// ok: sql-injection
	safe := s.db.QueryRowContext(ctx, "SELECT name FROM users WHERE name = $1", name)
	var u User
	// ruleid: sql-injection
	s.gorm.Where(fmt.Sprintf("name = '%s'", name)).First(&u)
	// ok: sql-injection
	s.gorm.Where("name = ?", name).First(&u)
	_, _ = row, safe
	return &u, nil
}
