from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import PlainTextResponse

app = FastAPI()
STORE = Path("/srv/invoices")


@app.get("/invoices/{invoice:path}", response_class=PlainTextResponse)
def read_invoice(invoice: str):
    target = STORE / f"{int(invoice)}.txt"
    return target.read_text()
