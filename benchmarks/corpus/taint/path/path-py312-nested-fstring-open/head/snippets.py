from flask import Flask, request
from werkzeug.utils import secure_filename

app = Flask(__name__)
SNIPPETS = "/srv/snippets"


@app.get("/snippet")
def snippet():
    with open(f"{SNIPPETS}/{request.values["name"]}.txt", encoding="utf-8") as fh:
        return fh.read()
