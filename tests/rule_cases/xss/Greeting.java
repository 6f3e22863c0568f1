package com.example.web;

import java.io.IOException;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.owasp.encoder.Encode;

public class Greeting {
    public void get(HttpServletRequest request, HttpServletResponse response) throws IOException {
        // ruleid: xss
        response.getWriter().println("<h1>Hello " + request.getParameter("name") + "</h1>");
        // ok: xss
        response.getWriter().println("<h1>Hello " + Encode.forHtml(request.getParameter("name")) + "</h1>");
    }
}
