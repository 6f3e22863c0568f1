"""Shell calls behind constant disguises: each reads as its plain form."""

import importlib
import subprocess

from flask import request


def run(cmd: str, path: str) -> None:
    # ruleid: command-injection
    getattr(__import__('os'), 'system')(cmd)
    # ruleid: command-injection
    __import__('o' + 's').system(cmd)
    # ruleid: command-injection
    getattr(importlib.import_module('o' 's'), 'po' + 'pen')(cmd)
    # ruleid: command-injection
    subprocess.run(['sh', '-c', cmd])
    # ruleid: command-injection
    subprocess.check_call(["/bin/bash", "-c", cmd], timeout=30)
    # ruleid: command-injection
    subprocess.run(['cmd', '/c', cmd])
    # ruleid: command-injection
    subprocess.run(['sh', '-c', 'ping -c1 ' + request.args['host']])
    # ok: command-injection
    subprocess.run(['ls', '-l', path])
    # ok: command-injection
    subprocess.run(['sh', 'scripts/build.sh', path], check=True)
    # ok: command-injection
    getattr(__import__('os'), 'getcwd')()
