from fastapi import FastAPI
from fastapi.responses import HTMLResponse

app = FastAPI()


@app.get("/list", response_class=HTMLResponse)
def listing(page: str = "1"):
    current = int(page)
    html = f"<nav>Page {current}</nav><table></table>"
    return HTMLResponse(content=html)
