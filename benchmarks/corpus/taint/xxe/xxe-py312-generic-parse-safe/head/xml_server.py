from http.server import BaseHTTPRequestHandler, HTTPServer

from lxml import etree


def parse_as[T](data: bytes, convert: type[T]) -> T:
    parser = etree.XMLParser(resolve_entities=False)
    return convert(etree.fromstring(data, parser).text)


class XmlHandler(BaseHTTPRequestHandler):
    def do_POST(self):
        data = self.rfile.read(int(self.headers["Content-Length"]))
        value = parse_as(data, str)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(value.encode())


if __name__ == "__main__":
    HTTPServer(("127.0.0.1", 8005), XmlHandler).serve_forever()
