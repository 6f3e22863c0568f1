from flask import Flask, abort, request, session

app = Flask(__name__)
app.secret_key = "dev-only"
PLANS = ("free", "team")
DEFAULT_PLAN = "free"


@app.post("/plan")
def choose_plan():
    plan = request.form.get("plan", DEFAULT_PLAN)
    if plan not in PLANS:
        abort(400)
    session["plan"] = plan
    return {"plan": plan}
