import os

from flask import Flask, request
from werkzeug.utils import secure_filename

app = Flask(__name__)
UPLOADS = "/srv/uploads"


@app.post("/upload")
def upload():
    item = request.files["document"]
    filename = secure_filename(item.filename)
    dest = os.path.join(UPLOADS, filename)
    with open(dest, "wb") as out:
        out.write(item.read())
    return {"stored": filename}
