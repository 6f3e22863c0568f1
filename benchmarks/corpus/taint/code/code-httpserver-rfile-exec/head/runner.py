from http.server import BaseHTTPRequestHandler, HTTPServer

SCRIPT_MODE = True


class Runner(BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length).decode()
        if SCRIPT_MODE:
            exec(body, {})
        self.send_response(204)
        self.end_headers()


if __name__ == "__main__":
    HTTPServer(("127.0.0.1", 8001), Runner).serve_forever()
