from flask import Flask, abort, request, session

app = Flask(__name__)
app.secret_key = "dev-only"
SELF_SERVICE = ("viewer", "commenter")


@app.post("/role")
def choose_role():
    role = request.args.get("role", "viewer")
    if role not in SELF_SERVICE:
        abort(403)
    session["role"] = role
    return {"role": role}
