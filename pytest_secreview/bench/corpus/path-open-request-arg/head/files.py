from flask import Flask, request

app = Flask(__name__)


@app.get("/download")
def download():
    with open("/srv/files/" + request.args["name"], "rb") as fh:
        return fh.read()
