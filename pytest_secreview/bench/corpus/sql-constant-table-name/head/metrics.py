import sqlite3

TABLE = "daily_metrics"


def latest():
    conn = sqlite3.connect("metrics.db")
    cur = conn.cursor()
    cur.execute("SELECT day, value FROM %s ORDER BY day DESC LIMIT 1" % TABLE)
    return cur.fetchone()
