from fastapi import FastAPI, HTTPException
from fastapi.responses import RedirectResponse

app = FastAPI()
AFTER_LOGIN = ("/app", "/app/billing", "/app/team")


@app.get("/oauth/callback")
def callback(code: str, state: str = "/app"):
    if state not in AFTER_LOGIN:
        raise HTTPException(status_code=400, detail="bad state")
    return RedirectResponse(url=state, status_code=303)
