package com.example.http;

import java.security.cert.X509Certificate;
import javax.net.ssl.HostnameVerifier;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLSession;
import javax.net.ssl.X509TrustManager;
import org.apache.http.conn.ssl.NoopHostnameVerifier;
import org.apache.http.impl.client.CloseableHttpClient;
import org.apache.http.impl.client.HttpClients;

public class TrustAll implements X509TrustManager {
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    // ruleid: tls-verification-disabled
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
    }

    static void configure(HttpsURLConnection conn) {
        // ruleid: tls-verification-disabled
        conn.setHostnameVerifier((hostname, session) -> true);
        // ruleid: tls-verification-disabled
        CloseableHttpClient c = HttpClients.custom().setSSLHostnameVerifier(NoopHostnameVerifier.INSTANCE).build();
    }

    static final HostnameVerifier ANY = new HostnameVerifier() {
        @Override
        // ruleid: tls-verification-disabled
        public boolean verify(String hostname, SSLSession session) { return true; }
    };
}
