from fastapi import FastAPI, Request
from lxml import etree

app = FastAPI()
DTD_SUPPORT = False


@app.post("/soap")
async def soap(request: Request):
    body = await request.body()
    if DTD_SUPPORT:
        parser = etree.XMLParser(load_dtd=True, resolve_entities=True)
        root = etree.fromstring(body, parser)
        return {"action": root.tag}
    return {"action": None}
