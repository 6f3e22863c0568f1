import os
import subprocess

from flask import request


def convert():
    name = request.args["file"]
    # ruleid: command-injection
    subprocess.run(f"convert {name} out.png", shell=True)
    # ruleid: command-injection
    subprocess.check_output("convert " + name + " out.png", shell=True)
    # ok: command-injection
    subprocess.run("ls -l /tmp", shell=True)
    # ok: command-injection
    subprocess.run(["convert", "--", name, "out.png"], check=True)
    # ruleid: command-injection
    os.system("rm -rf /tmp/" + name)
    # ruleid: command-injection
    os.popen(f"du -sh {name}")
    # ok: command-injection
    os.system("clear")
    # ok: command-injection
    subprocess.run("echo 'done'", shell=True)


def ping():
    # ruleid: command-injection
    os.system("ping -c1 " + request.args["host"])
    # ruleid: command-injection
    subprocess.run(f"ping -c1 {request.args['host']}", shell=True)
    # ok: command-injection
    subprocess.run(["ping", "-c1", "--", request.args["host"]], check=True)
