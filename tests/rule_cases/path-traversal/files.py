import os

from flask import Flask, request, send_file, send_from_directory
from werkzeug.utils import secure_filename

app = Flask(__name__)
UPLOADS = "/srv/uploads"


@app.route("/download")
def download():
    # ruleid: path-traversal
    return send_file(os.path.join(UPLOADS, request.args["name"]))


@app.route("/download-safe")
def download_safe():
    # ok: path-traversal
    return send_from_directory(UPLOADS, request.args["name"])


@app.route("/read")
def read():
    # ruleid: path-traversal
    with open(UPLOADS + "/" + request.args.get("name", "")) as fh:
        return fh.read()


@app.route("/upload", methods=["POST"])
def upload():
    f = request.files["file"]
    # ok: path-traversal
    f.save(os.path.join(UPLOADS, secure_filename(f.filename)))
    return "ok"
