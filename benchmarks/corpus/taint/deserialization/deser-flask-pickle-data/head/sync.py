import json
import pickle

from flask import Flask, request

app = Flask(__name__)


@app.post("/sync")
def sync():
    blob = request.data
    state = pickle.loads(blob)
    return {"keys": sorted(state)}
