package com.example.security;

import jakarta.annotation.security.PermitAll;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.bind.annotation.GetMapping;

public class SecurityConfig {
    @Bean
    SecurityFilterChain open(HttpSecurity http) throws Exception {
        // ruleid: missing-authorization
        http.authorizeHttpRequests(a -> a.anyRequest().permitAll());
        return http.build();
    }

    @Bean
    SecurityFilterChain closed(HttpSecurity http) throws Exception {
        // ok: missing-authorization
        http.authorizeHttpRequests(a -> a.requestMatchers("/healthz").permitAll().anyRequest().authenticated());
        return http.build();
    }

    // ruleid: missing-authorization
    @PermitAll
    @GetMapping("/status")
    public String status() {
        return "ok";
    }
}
