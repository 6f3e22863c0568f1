import os

from flask import request
from werkzeug.utils import secure_filename

UPLOADS = "/srv/uploads"


def save_upload():
    upload = request.files["file"]
    name = secure_filename(upload.filename)
    upload.save(os.path.join(UPLOADS, name))
    return name
