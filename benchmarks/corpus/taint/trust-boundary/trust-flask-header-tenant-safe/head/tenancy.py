from flask import Flask, request, session

app = Flask(__name__)
app.secret_key = "dev-only"
MULTI_TENANT = False


@app.before_request
def bind_tenant():
    tenant = "default"
    if MULTI_TENANT:
        tenant = request.headers.get("X-Tenant", "default")
    session["tenant"] = tenant
