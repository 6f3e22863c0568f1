"""The notes service: a small Flask application for shared notes and invoices."""

from flask import Flask

from . import auth, views


def create_app(config: dict | None = None) -> Flask:
    app = Flask(__name__)
    app.config.update(SECRET_KEY_FILE="/run/notes/secret", EXPORT_ROOT="/srv/notes/exports")
    app.config.update(config or {})
    app.register_blueprint(auth.bp)
    app.register_blueprint(views.bp)
    return app
