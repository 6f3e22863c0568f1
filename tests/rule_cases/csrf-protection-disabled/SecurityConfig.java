package com.example.security;

import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;

public class SecurityConfig {
    void legacy(HttpSecurity http) throws Exception {
        // ruleid: csrf-protection-disabled
        http.csrf().disable();
    }

    void lambda(HttpSecurity http) throws Exception {
        // ruleid: csrf-protection-disabled
        http.csrf(csrf -> csrf.disable());
    }

    void reference(HttpSecurity http) throws Exception {
        // ruleid: csrf-protection-disabled
        http.csrf(AbstractHttpConfigurer::disable);
    }
}
