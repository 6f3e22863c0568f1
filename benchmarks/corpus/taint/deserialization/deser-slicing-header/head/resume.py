import base64
import json
import pickle

from flask import Flask, request

app = Flask(__name__)


@app.get("/resume")
def resume():
    header = request.headers.get("X-Resume-State", "v1:e30=")
    blob = base64.b64decode(header[3:])
    state = pickle.loads(blob)
    return {"step": state.get("step", 0)}
