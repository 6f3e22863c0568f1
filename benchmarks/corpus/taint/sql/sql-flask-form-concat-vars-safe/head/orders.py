import psycopg2
from flask import Flask, request

app = Flask(__name__)
conn = psycopg2.connect("dbname=shop")


@app.post("/orders/cancel")
def cancel():
    raw = request.form["order_id"]
    order_id = str(int(raw.strip()))
    clause = "WHERE id = " + order_id
    query = "UPDATE orders SET status = 'cancelled' " + clause
    with conn.cursor() as cur:
        cur.execute(query)
    conn.commit()
    return {"ok": True}
