import json
import pickle
from http.server import BaseHTTPRequestHandler, HTTPServer


class Tasks(BaseHTTPRequestHandler):
    def do_POST(self):
        size = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(size)
        task = pickle.loads(raw)
        self.send_response(202)
        self.end_headers()
        self.wfile.write(str(len(task)).encode())


if __name__ == "__main__":
    HTTPServer(("127.0.0.1", 8006), Tasks).serve_forever()
