import json

import jsonpickle
from fastapi import FastAPI, Request

app = FastAPI()


@app.post("/jobs")
async def submit(request: Request):
    raw = (await request.body()).decode()
    job = jsonpickle.decode(raw)
    return {"queued": str(job)[:40]}
