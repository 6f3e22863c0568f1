from fastapi import FastAPI
from sqlalchemy import create_engine, text

app = FastAPI()
engine = create_engine("sqlite:///inventory.db")


@app.get("/items/{sku}")
def get_item(sku: str):
    with engine.connect() as conn:
        stmt = text(f"SELECT name, qty FROM items WHERE sku = {int(sku)}")
        row = conn.execute(stmt).first()
    return {"name": row[0], "qty": row[1]} if row else {}
