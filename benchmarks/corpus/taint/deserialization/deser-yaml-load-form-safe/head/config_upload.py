import yaml
from flask import Flask, request

app = Flask(__name__)


@app.post("/config")
def upload_config():
    text = request.form["config"]
    config = yaml.safe_load(text)
    return {"services": list(config.get("services", {}))}
