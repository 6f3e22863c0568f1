from flask import request, session


def login_as():
    # match: trust-boundary
    session["user_id"] = request.form["user_id"]
    return "ok"
