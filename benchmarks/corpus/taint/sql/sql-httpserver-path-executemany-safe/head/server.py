import sqlite3
from http.server import BaseHTTPRequestHandler, HTTPServer

ROWS = [("a", 1), ("b", 2)]
TABLES = ("metrics", "counters")


class Loader(BaseHTTPRequestHandler):
    def do_POST(self):
        table = self.path[len("/load/"):]
        if table not in TABLES:
            self.send_error(400)
            return
        conn = sqlite3.connect("stats.db")
        conn.executemany("INSERT INTO " + table + " VALUES (?, ?)", ROWS)
        conn.commit()
        self.send_response(204)
        self.end_headers()


if __name__ == "__main__":
    HTTPServer(("127.0.0.1", 8080), Loader).serve_forever()
