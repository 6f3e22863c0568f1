import os

BUCKET = "/srv/bucket"


def read_document(name):
    with open(os.path.join(BUCKET, name), encoding="utf-8") as fh:
        return fh.read()
