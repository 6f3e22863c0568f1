from flask import Flask, make_response, request

app = Flask(__name__)
REGIONS = {"https://eu.example.com/", "https://us.example.com/"}


@app.get("/")
def home():
    site = request.args.get("region_site", "https://eu.example.com/")
    if site not in REGIONS:
        site = "https://eu.example.com/"
    resp = make_response("", 302)
    resp.headers["Location"] = site
    return resp
