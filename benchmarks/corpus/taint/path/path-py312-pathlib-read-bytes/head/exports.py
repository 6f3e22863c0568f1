from pathlib import Path

from flask import Flask
from werkzeug.utils import secure_filename

app = Flask(__name__)
EXPORTS = Path("/srv/exports")

type Blob = bytes


def load_export(name: str) -> Blob:
    return (EXPORTS / name).read_bytes()


@app.get("/exports/<path:name>")
def export(name):
    return load_export(name)
