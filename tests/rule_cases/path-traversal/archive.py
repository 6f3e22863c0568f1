import tarfile

from flask import request


def import_bundle(dest):
    upload = request.files["bundle"]
    with tarfile.open(fileobj=upload.stream) as tar:
        # ruleid: path-traversal
        tar.extractall(dest)
