import os

from flask import Flask, request, send_file
from werkzeug.utils import secure_filename

app = Flask(__name__)
DOWNLOADS = "/srv/downloads"


@app.get("/download")
def download():
    name = secure_filename(request.args.get("file", ""))
    path = os.path.join(DOWNLOADS, name)
    return send_file(path, as_attachment=True)
