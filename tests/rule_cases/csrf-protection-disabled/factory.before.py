from flask import Flask
from flask_wtf.csrf import CSRFProtect


def create_app():
    app = Flask(__name__)
    # ruleid: csrf-protection-disabled
    CSRFProtect(app)
    return app
