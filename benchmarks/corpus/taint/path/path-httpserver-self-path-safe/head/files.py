import os
from http.server import BaseHTTPRequestHandler, HTTPServer

ROOT = "/srv/www"


class Files(BaseHTTPRequestHandler):
    def do_GET(self):
        local = os.path.realpath(ROOT + self.path)
        if not local.startswith(ROOT + os.sep):
            self.send_error(404)
            return
        with open(local, "rb") as fh:
            data = fh.read()
        self.send_response(200)
        self.end_headers()
        self.wfile.write(data)


if __name__ == "__main__":
    HTTPServer(("127.0.0.1", 8003), Files).serve_forever()
