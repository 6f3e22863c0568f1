from fastapi import FastAPI, HTTPException
from fastapi.responses import RedirectResponse

app = FastAPI()
AFTER_LOGIN = ("/app", "/app/billing", "/app/team")


@app.get("/oauth/callback")
def callback(code: str, state: str = "/app"):
    # exchange of `code` for a token happens in the session middleware
    return RedirectResponse(url=state, status_code=303)
