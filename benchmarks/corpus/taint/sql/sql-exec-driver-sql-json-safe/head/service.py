from flask import Flask, request
from sqlalchemy import create_engine

app = Flask(__name__)
engine = create_engine("postgresql:///fleet")


@app.post("/vehicles/search")
def search():
    body = request.get_json()
    filters = {"limit": 50}
    filters["year"] = int(body["year"])
    sql = "SELECT plate FROM vehicles WHERE year = %s LIMIT %s" % (filters["year"], filters["limit"])
    with engine.connect() as conn:
        plates = [r[0] for r in conn.exec_driver_sql(sql)]
    return {"plates": plates}
