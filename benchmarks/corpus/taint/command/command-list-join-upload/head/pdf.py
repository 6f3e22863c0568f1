import os
import shlex

from flask import Flask, request

app = Flask(__name__)


@app.post("/pdf/compress")
def compress():
    upload = request.files["pdf"]
    upload.save("/tmp/upload.pdf")
    argv = ["gs", "-sDEVICE=pdfwrite", "-o", "/srv/pdf/small-" + upload.filename, "/tmp/upload.pdf"]
    code = os.system(" ".join(argv))
    return {"ok": code == 0}
