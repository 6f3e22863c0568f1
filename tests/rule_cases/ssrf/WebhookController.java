package com.example.hooks;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URL;
import javax.servlet.http.HttpServletRequest;
import org.springframework.web.client.RestTemplate;

public class WebhookController {
    private final RestTemplate restTemplate = new RestTemplate();

    public String ping(HttpServletRequest request) throws IOException {
        // ruleid: ssrf
        URL url = new URL(request.getParameter("callback"));
        HttpURLConnection conn = (HttpURLConnection) url.openConnection();
        // ruleid: ssrf
        String body = restTemplate.getForObject(request.getParameter("target"), String.class);
        // ok: ssrf
        String status = restTemplate.getForObject("https://status.example.com/api", String.class);
        return conn.getResponseCode() + body + status;
    }
}
