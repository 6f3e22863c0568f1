import sqlite3


def load_profile(token):
    conn = sqlite3.connect("app.db")
    cur = conn.cursor()
    cur.execute("SELECT name, bio FROM profiles WHERE token = ?", (token,))
    row = cur.fetchone()
    return None if row is None else {"name": row[0], "bio": row[1]}
