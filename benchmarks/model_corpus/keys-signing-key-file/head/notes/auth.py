"""Sign-in and the current user."""

from __future__ import annotations

import functools
import hashlib
import hmac

from flask import Blueprint, abort, g, request, session

from . import store

bp = Blueprint("auth", __name__)
MAX_FAILED_LOGINS = 5


def hash_password(password: str, salt: bytes) -> str:
    return hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 200_000).hex()


def signed_in(view):
    @functools.wraps(view)
    def wrapper(*args, **kwargs):
        user = store.USERS.get(session.get("user_id", -1))
        if user is None:
            abort(401)
        g.user = user
        return view(*args, **kwargs)
    return wrapper


@bp.post("/login")
def login():
    user = store.user_by_name(request.form["name"])
    if user is None:
        abort(401)
    if user.locked:
        abort(423)
    given = hash_password(request.form["password"], b"notes")
    if not hmac.compare_digest(given, user.password_hash):
        user.failed_logins += 1
        if user.failed_logins >= MAX_FAILED_LOGINS:
            user.locked = True
        abort(401)
    user.failed_logins = 0
    session["user_id"] = user.id
    return {"ok": True}
