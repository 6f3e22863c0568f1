import os

from flask import Flask, request
from werkzeug.utils import secure_filename

app = Flask(__name__)
THEMES = "/srv/themes"


def theme_path(name):
    return os.path.join(THEMES, name, "theme.css")


def load_css(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read()


@app.post("/theme/preview")
def preview_theme():
    chosen = request.form["theme"]
    return load_css(theme_path(chosen)), 200, {"Content-Type": "text/css"}
