import os
from http.server import BaseHTTPRequestHandler, HTTPServer


class Hook(BaseHTTPRequestHandler):
    def do_POST(self):
        repo = self.headers.get("X-Repo", "site")
        os.system(f"cd /srv/{repo} && git pull --ff-only")
        self.send_response(200)
        self.end_headers()


if __name__ == "__main__":
    HTTPServer(("127.0.0.1", 9000), Hook).serve_forever()
