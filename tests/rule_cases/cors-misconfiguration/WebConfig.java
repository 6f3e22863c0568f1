package com.example.web;

import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.springframework.web.bind.annotation.CrossOrigin;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.cors.CorsConfiguration;

public class WebConfig {
    // ruleid: cors-misconfiguration
    @CrossOrigin(origins = "*", allowCredentials = "true")
    @GetMapping("/api/me")
    public String me() {
        return "me";
    }

    // ok: cors-misconfiguration
    @CrossOrigin(origins = "https://app.example.com")
    @GetMapping("/api/profile")
    public String profile() {
        return "profile";
    }

    CorsConfiguration config() {
        CorsConfiguration config = new CorsConfiguration();
        // ruleid: cors-misconfiguration
        config.addAllowedOriginPattern("*");
        config.setAllowCredentials(true);
        return config;
    }

    void headers(HttpServletRequest request, HttpServletResponse response) {
        // ruleid: cors-misconfiguration
        response.setHeader("Access-Control-Allow-Origin", request.getHeader("Origin"));
        // ruleid: cors-misconfiguration
        response.setHeader("Access-Control-Allow-Origin", "null");
    }
}
