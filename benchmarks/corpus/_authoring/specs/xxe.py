# Authoring spec: `pair` is provided by build.py when it loads this module.

PAIRS = [
pair("xxe-lxml-resolve-entities", "xxe",
     "A Flask endpoint parses the request body with an lxml parser that resolves entities and may use the network",
     "The parser is built with resolve_entities=False",
     ["flask", "request.data", "lxml"], ["parser-hardened"],
     {"orders_xml.py": r'''
        from flask import Flask, request
        from lxml import etree

        app = Flask(__name__)


        @app.post("/orders/xml")
        def import_order():
            parser = etree.XMLParser(resolve_entities=True, no_network=False)
            doc = etree.fromstring(request.data, parser)  #@sink
            return {"customer": doc.findtext("customer")}
     '''},
     [("resolve_entities=True, no_network=False", "resolve_entities=False, no_network=True")]),

pair("xxe-sax-external-ges", "xxe",
     "A Django view parses the request body with xml.sax with external general entities enabled",
     "The external-entities feature is set to False",
     ["django", "request.body", "sax"], ["parser-hardened"],
     {"feeds.py": r'''
        import io
        import xml.sax
        from xml.sax.handler import feature_external_ges

        from django.http import JsonResponse


        class Counter(xml.sax.ContentHandler):
            def __init__(self):
                super().__init__()
                self.items = 0

            def startElement(self, name, attrs):
                self.items += name == "item"


        def ingest(request):
            handler = Counter()
            parser = xml.sax.make_parser()
            parser.setFeature(feature_external_ges, True)
            parser.setContentHandler(handler)
            parser.parse(io.BytesIO(request.body))  #@sink
            return JsonResponse({"items": handler.items})
     '''},
     [("parser.setFeature(feature_external_ges, True)", "parser.setFeature(feature_external_ges, False)")]),

pair("xxe-lxml-dtd-upload-constant", "xxe",
     "An uploaded XML file is parsed by an lxml parser that loads DTDs and resolves entities",
     "The same parser reads a bundled schema file instead of the upload",
     ["flask", "request.files", "lxml"], ["constant"],
     {"invoices_xml.py": r'''
        from flask import Flask, request
        from lxml import etree

        app = Flask(__name__)
        PARSER = etree.XMLParser(load_dtd=True, resolve_entities=True)


        @app.post("/invoices/validate")
        def validate():
            source = request.files["invoice"]
            tree = etree.parse(source, PARSER)  #@sink
            return {"root": tree.getroot().tag, "uploaded": source.filename}
     '''},
     [("tree = etree.parse(source, PARSER)", 'tree = etree.parse("/srv/schemas/invoice-example.xml", PARSER)')]),

pair("xxe-fastapi-dead-branch", "xxe",
     "A FastAPI endpoint parses the raw body with an entity-resolving lxml parser when DTD support is on",
     "DTD support is a constant False, so the tainted body never reaches the parser",
     ["fastapi", "request-body", "constant-folding", "lxml"], ["dead-branch"],
     {"soap.py": r'''
        from fastapi import FastAPI, Request
        from lxml import etree

        app = FastAPI()
        DTD_SUPPORT = True


        @app.post("/soap")
        async def soap(request: Request):
            body = await request.body()
            if DTD_SUPPORT:
                parser = etree.XMLParser(load_dtd=True, resolve_entities=True)
                root = etree.fromstring(body, parser)  #@sink
                return {"action": root.tag}
            return {"action": None}
     '''},
     [("DTD_SUPPORT = True", "DTD_SUPPORT = False")]),

pair("xxe-removed-hardening", "xxe",
     "The pull request turns entity resolution back on for an lxml parser fed by an aiohttp request",
     "The pull request changes the huge_tree flag and keeps resolve_entities=False",
     ["aiohttp", "request-body", "lxml"], ["parser-hardened"],
     {"import_xml.py": r'''
        from aiohttp import web
        from lxml import etree

        PARSER = etree.XMLParser(resolve_entities=True, huge_tree=False)


        async def import_xml(request: web.Request) -> web.Response:
            data = await request.read()
            root = etree.fromstring(data, PARSER)  #@sink
            return web.json_response({"records": len(root)})
     '''},
     [("resolve_entities=True, huge_tree=False", "resolve_entities=False, huge_tree=False")],
     base=[("huge_tree=False", "huge_tree=True")]),

pair("xxe-py312-generic-parse", "xxe",
     "A Python 3.12 generic helper parses an http.server request body with an entity-resolving parser",
     "The helper's parser does not resolve entities",
     ["http.server", "rfile", "py312", "type-params", "helper-function", "lxml"], ["parser-hardened"],
     {"xml_server.py": r'''
        from http.server import BaseHTTPRequestHandler, HTTPServer

        from lxml import etree


        def parse_as[T](data: bytes, convert: type[T]) -> T:
            parser = etree.XMLParser(resolve_entities=True)
            return convert(etree.fromstring(data, parser).text)  #@sink


        class XmlHandler(BaseHTTPRequestHandler):
            def do_POST(self):
                data = self.rfile.read(int(self.headers["Content-Length"]))
                value = parse_as(data, str)
                self.send_response(200)
                self.end_headers()
                self.wfile.write(value.encode())


        if __name__ == "__main__":
            HTTPServer(("127.0.0.1", 8005), XmlHandler).serve_forever()
     '''},
     [("parser = etree.XMLParser(resolve_entities=True)", "parser = etree.XMLParser(resolve_entities=False)")]),
]
