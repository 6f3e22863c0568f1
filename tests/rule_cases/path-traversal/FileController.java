package com.example.files;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import javax.servlet.http.HttpServletRequest;

public class FileController {
    private static final String UPLOAD_DIR = "/srv/uploads";

    public byte[] download(HttpServletRequest request) throws IOException {
        // ruleid: path-traversal
        File file = new File(UPLOAD_DIR, request.getParameter("name"));
        // ruleid: path-traversal
        byte[] data = Files.readAllBytes(Paths.get(UPLOAD_DIR, request.getParameter("name")));
        return file.exists() ? data : new byte[0];
    }

    public byte[] downloadSafe(HttpServletRequest request) throws IOException {
        Path base = Paths.get(UPLOAD_DIR).toRealPath();
        String name = request.getParameter("name");
        // ok: path-traversal
        Path safe = base.resolve(name).normalize();
        if (!safe.startsWith(base)) {
            throw new SecurityException("path escapes the upload directory");
        }
        return Files.readAllBytes(safe);
    }
}
