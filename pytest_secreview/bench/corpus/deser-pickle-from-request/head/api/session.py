import base64
import pickle

from flask import request


def restore_session():
    blob = base64.b64decode(request.cookies["state"])
    return pickle.loads(blob)
