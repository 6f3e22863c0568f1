import os

from flask import request

BASE = "/srv/uploads"


def save_upload():
    f = request.files["file"]
    name = f.filename
    f.save(os.path.join(BASE, name))


def read_report(name):
    path = os.path.join(BASE, name)
    with open(path) as fh:
        return fh.read()
