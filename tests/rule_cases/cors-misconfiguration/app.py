from flask import Flask
from flask_cors import CORS

app = Flask(__name__)
# ruleid: cors-misconfiguration
CORS(app, origins="*", supports_credentials=True)
# ok: cors-misconfiguration
CORS(app, origins=["https://app.example.com"], supports_credentials=True)
