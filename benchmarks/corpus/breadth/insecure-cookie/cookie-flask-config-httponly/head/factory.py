from flask import Flask


def create_app():
    app = Flask(__name__)
    app.config["SESSION_COOKIE_SECURE"] = True
    app.config["SESSION_COOKIE_HTTPONLY"] = False
    return app
