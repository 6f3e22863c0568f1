from flask import Flask, render_template_string, request

app = Flask(__name__)


@app.post("/preview")
def preview():
    title = request.form["title"]
    return render_template_string("<h2>" + title + "</h2><p>Preview</p>")
