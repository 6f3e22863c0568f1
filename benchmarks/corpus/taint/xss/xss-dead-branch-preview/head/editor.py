from flask import Flask, request

app = Flask(__name__)
RAW_PREVIEW = 1


@app.post("/editor/preview")
def editor_preview():
    body = "<p>Preview unavailable</p>"
    if RAW_PREVIEW > 0:
        body = request.form["html"]
    return body
