from flask import Flask
from flask_login import login_required

from .users import delete, profile

app = Flask(__name__)


# match: missing-authorization
@app.route("/admin/users/<int:user_id>", methods=["DELETE"])
def delete_user(user_id):
    return delete(user_id)


# ok: missing-authorization
@app.route("/me")
@login_required
def me():
    return profile()
