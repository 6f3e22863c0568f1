from flask import Flask, make_response

app = Flask(__name__)


@app.post("/login")
def login():
    resp = make_response({"ok": True})
    # ruleid: insecure-cookie
    resp.set_cookie("session_id", new_session())
    # ruleid: insecure-cookie
    resp.set_cookie("remember", token(), secure=True)
    # ok: insecure-cookie
    resp.set_cookie("sid", new_session(), secure=True, httponly=True, samesite="Lax")
    # ok: insecure-cookie
    resp.set_cookie("sid", "", max_age=0)
    resp.set_cookie(
        "prefs",
        "dark",
        # ruleid: insecure-cookie
        secure=False,
        # ok: insecure-cookie
        httponly=True,
    )
    return resp


def new_session():
    return "s"


def token():
    return "t"
