import html
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, urlparse


class Echo(BaseHTTPRequestHandler):
    def do_GET(self):
        params = parse_qs(urlparse(self.path).query)
        word = html.escape(params.get("word", [""])[0])
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(f"<p>You said {word}</p>".encode())


if __name__ == "__main__":
    HTTPServer(("127.0.0.1", 8002), Echo).serve_forever()
