import os

from fastapi import FastAPI
from flask import Flask
from werkzeug.debug import DebuggedApplication

app = Flask(__name__)
# ruleid: debug-mode-enabled
app.debug = True
# ruleid: debug-mode-enabled
application = DebuggedApplication(app, evalex=True)
# ruleid: debug-mode-enabled
api = FastAPI(title="billing", debug=True)

if __name__ == "__main__":
    # ruleid: debug-mode-enabled
    app.run(host="0.0.0.0", debug=True)
    # ok: debug-mode-enabled
    app.run(debug=os.environ.get("FLASK_DEBUG") == "1")
