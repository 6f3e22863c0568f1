import yaml
from flask import Flask, request

app = Flask(__name__)


@app.post("/pipelines")
def create_pipeline():
    text = request.files["definition"].read().decode()
    spec = yaml.load(text, Loader=yaml.SafeLoader)
    return {"steps": len(spec.get("steps", []))}
