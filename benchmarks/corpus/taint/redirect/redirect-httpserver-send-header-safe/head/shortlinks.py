from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, urlparse

OPEN_FORWARD = False


class Short(BaseHTTPRequestHandler):
    def do_GET(self):
        dest = "https://example.com/"
        if OPEN_FORWARD:
            dest = parse_qs(urlparse(self.path).query).get("to", [dest])[0]
        self.send_response(302)
        self.send_header("Location", dest)
        self.end_headers()


if __name__ == "__main__":
    HTTPServer(("127.0.0.1", 8004), Short).serve_forever()
