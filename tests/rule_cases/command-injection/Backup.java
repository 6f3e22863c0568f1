package com.example.ops;

import java.io.IOException;

public class Backup {
    public void run(String name, String dir, String command, String target) throws IOException {
        // ruleid: command-injection
        Runtime.getRuntime().exec("tar czf /backups/" + name + ".tgz /data");
        // ruleid: command-injection
        Runtime.getRuntime().exec(new String[] {"sh", "-c", "ls " + dir});
        // ruleid: command-injection
        new ProcessBuilder("bash", "-c", command).start();
        // ok: command-injection
        new ProcessBuilder("tar", "czf", target, "/data").start();
    }
}
