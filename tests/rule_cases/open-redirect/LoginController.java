package com.example.web;

import java.io.IOException;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

public class LoginController {
    public void done(HttpServletRequest request, HttpServletResponse response) throws IOException {
        // ruleid: open-redirect
        response.sendRedirect(request.getParameter("url"));
    }

    public String next(HttpServletRequest request) {
        // ruleid: open-redirect
        return "redirect:" + request.getParameter("next");
    }

    public String home() {
        // ok: open-redirect
        return "redirect:/dashboard";
    }
}
