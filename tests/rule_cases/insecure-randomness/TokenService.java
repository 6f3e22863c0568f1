package com.example.auth;

import java.security.SecureRandom;
import java.util.Random;
import javax.servlet.http.HttpSession;
import org.apache.commons.lang3.RandomStringUtils;

public class TokenService {
    public String[] issue(HttpSession session) {
        // ruleid: insecure-randomness
        String token = Long.toHexString(new Random().nextLong());
        // ok: insecure-randomness
        String token2 = Long.toHexString(new SecureRandom().nextLong());
        // ruleid: insecure-randomness
        String apiKey = RandomStringUtils.randomAlphanumeric(32);
        // ruleid: insecure-randomness
        session.setAttribute("csrf", new Random().nextInt());
        return new String[] {token, token2, apiKey};
    }
}
