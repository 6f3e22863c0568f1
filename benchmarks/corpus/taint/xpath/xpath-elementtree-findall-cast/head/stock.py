import xml.etree.ElementTree as ET

from fastapi import FastAPI

app = FastAPI()
ROOT = ET.parse("stock.xml").getroot()


@app.get("/stock/{sku}")
def stock(sku: str):
    code = sku
    items = ROOT.findall(f".//item[@sku='{code}']")
    return {"count": sum(int(i.get("qty", "0")) for i in items)}
