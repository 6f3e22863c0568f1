import os

from flask import request
# ok: path-traversal
from werkzeug.utils import secure_filename

BASE = "/srv/uploads"


def save_upload():
    f = request.files["file"]
    # ruleid: path-traversal
    name = secure_filename(f.filename)
    f.save(os.path.join(BASE, name))


def read_report(name):
    path = os.path.join(BASE, name)
    # ruleid: path-traversal
    if not os.path.realpath(path).startswith(BASE + os.sep):
        raise PermissionError(name)
    with open(path) as fh:
        return fh.read()
