package com.example.billing;

public final class Application {
    // ruleid: hardcoded-secrets
    private static final String DB_PASSWORD = "{{GENERIC_PASSWORD}}";
    // ok: hardcoded-secrets
    private static final String DB_PASSWORD_ENV = System.getenv("DB_PASSWORD");
    // ok: hardcoded-secrets
    private static final String PASSWORD_PARAM = "password";

    public static void main(String[] args) {
        System.out.println(DB_PASSWORD.length() + DB_PASSWORD_ENV.length() + PASSWORD_PARAM.length());
    }
}
