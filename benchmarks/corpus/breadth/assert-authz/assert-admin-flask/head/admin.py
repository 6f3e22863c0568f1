from flask import Flask, abort, g

app = Flask(__name__)


@app.post("/admin/users/<int:user_id>/delete")
def delete_user(user_id):
    assert g.user.is_admin
    app.config["USERS"].pop(user_id, None)
    return {"deleted": user_id}
