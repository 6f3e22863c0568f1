from fastapi import FastAPI, Request
from lxml import etree

app = FastAPI()
FLAGS = etree.parse("flags.xml")


@app.get("/flags")
def flags(request: Request):
    client = request.headers.get("x-client", "web")
    enabled = FLAGS.xpath(f"//flag[client='{client}']/@name")
    return {"enabled": [str(n) for n in enabled]}
