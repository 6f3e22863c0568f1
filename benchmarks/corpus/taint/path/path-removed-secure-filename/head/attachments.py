import os

from flask import Flask, send_file
from werkzeug.utils import secure_filename

app = Flask(__name__)
ATTACHMENTS = "/srv/attachments"


@app.get("/attachments/<path:name>")
def attachment(name):
    clean = name
    return send_file(os.path.join(ATTACHMENTS, clean), mimetype="application/pdf")
