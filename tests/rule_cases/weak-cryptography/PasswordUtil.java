package com.example.security;

import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import javax.crypto.Cipher;

public final class PasswordUtil {
    public static void examples(String password) throws Exception {
        // ruleid: weak-cryptography
        byte[] hash = MessageDigest.getInstance("SHA-1").digest(password.getBytes());
        // ruleid: weak-cryptography
        Cipher c = Cipher.getInstance("AES/ECB/PKCS5Padding");
        // ruleid: weak-cryptography
        Cipher d = Cipher.getInstance("AES");
        // ruleid: weak-cryptography
        Cipher e = Cipher.getInstance("DESede/CBC/PKCS5Padding");
        // ok: weak-cryptography
        Cipher f = Cipher.getInstance("AES/GCM/NoPadding");
        // ruleid: weak-cryptography
        java.security.Signature s1 = java.security.Signature.getInstance("SHA1withRSA");
        // ok: weak-cryptography
        java.security.Signature s2 = java.security.Signature.getInstance("SHA256withRSA");
        KeyPairGenerator kpg = KeyPairGenerator.getInstance("RSA");
        // ruleid: weak-cryptography
        kpg.initialize(1024);
        // ok: weak-cryptography
        kpg.initialize(3072);
        System.out.println(s1.getAlgorithm() + s2.getAlgorithm() + hash.length + c.getBlockSize() + d.getBlockSize() + e.getBlockSize() + f.getBlockSize());
    }
}
