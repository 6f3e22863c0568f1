from flask import Flask, request, send_from_directory

app = Flask(__name__)


@app.get("/download")
def download():
    name = request.args["name"]
    return send_from_directory("/srv/files", name)
