package com.example.auth;

import com.auth0.jwt.JWT;
import com.auth0.jwt.interfaces.DecodedJWT;
import io.jsonwebtoken.Claims;
import io.jsonwebtoken.Jwts;
import java.security.PublicKey;

public class JwtFilter {
    public Object read(String token, PublicKey publicKey) {
        // ruleid: jwt-verification-disabled
        Claims claims = Jwts.parser().parseClaimsJwt(token).getBody();
        // ok: jwt-verification-disabled
        Claims verified = Jwts.parser().verifyWith(publicKey).build().parseSignedClaims(token).getPayload();
        // ruleid: jwt-verification-disabled
        DecodedJWT decoded = JWT.decode(token);
        return new Object[] {claims, verified, decoded};
    }
}
