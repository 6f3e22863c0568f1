# Authoring spec: `pair` is provided by build.py when it loads this module.
# A second round of pairs: helpers in a second changed module, object attributes, list
# containers and a few framework sinks the first round did not use.

PAIRS = [
pair("command-cross-module-convert", "command",
     "A Django upload's name is handed to a conversion helper in another changed module that runs it through os.system",
     "The view quotes the name with shlex.quote before calling the helper",
     ["django", "request.FILES", "cross-module", "os.system"], ["shlex-quote"],
     {"gallery/__init__.py": "", "gallery/views.py": r'''
        import shlex

        from django.http import JsonResponse

        from .media import convert_to_webp


        def upload_image(request):
            image = request.FILES["image"]
            name = image.name
            convert_to_webp(name)
            return JsonResponse({"queued": True})
     ''', "gallery/media.py": r'''
        import os


        def convert_to_webp(name):
            status = os.system("cwebp -q 80 /srv/media/incoming/" + name + " -o /srv/media/out.webp")  #@sink
            return status == 0
     '''},
     [("            name = image.name", "            name = shlex.quote(image.name)")]),

pair("path-cross-module-storage", "path",
     "A Starlette handler passes a path parameter to a storage module that opens it under the bucket directory",
     "The handler only accepts names from the published-documents list",
     ["starlette", "path_params", "cross-module", "open"], ["allowlist"],
     {"app.py": r'''
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import PlainTextResponse
        from starlette.routing import Route

        from storage import read_document

        PUBLISHED = ("terms.txt", "privacy.txt", "changelog.txt")


        async def document(request: Request) -> PlainTextResponse:
            doc = request.path_params["doc"]
            return PlainTextResponse(read_document(doc))


        app = Starlette(routes=[Route("/docs/{doc:path}", document)])
     ''', "storage.py": r'''
        import os

        BUCKET = "/srv/bucket"


        def read_document(name):
            with open(os.path.join(BUCKET, name), encoding="utf-8") as fh:  #@sink
                return fh.read()
     '''},
     [('''            return PlainTextResponse(read_document(doc))''', '''            if doc not in PUBLISHED:
                return PlainTextResponse("not found", status_code=404)
            return PlainTextResponse(read_document(doc))''')]),

pair("ssrf-cross-module-client", "ssrf",
     "A Flask JSON field is passed to an HTTP client module that requests it",
     "The view passes the configured status URL; the JSON field is only stored in the reply",
     ["flask", "request.json", "cross-module", "requests"], ["constant"],
     {"app.py": r'''
        from flask import Flask, request

        from client import fetch_status

        app = Flask(__name__)
        STATUS_URL = "https://status.example.com/api/v2/summary.json"


        @app.post("/status")
        def status():
            wanted = request.json.get("url", STATUS_URL)
            return {"asked": wanted, "status": fetch_status(wanted)}
     ''', "client.py": r'''
        import requests


        def fetch_status(url):
            reply = requests.get(url, timeout=5)  #@sink
            reply.raise_for_status()
            return reply.json().get("status", {})
     '''},
     [('"status": fetch_status(wanted)', '"status": fetch_status(STATUS_URL)')]),

pair("xss-cross-module-card", "xss",
     "A Django view builds an HTML card with a helper in another changed module and returns it in an HttpResponse",
     "The helper escapes the title with html.escape",
     ["django", "request.GET", "cross-module", "return-value", "httpresponse"], ["html-escape"],
     {"sharing/__init__.py": "", "sharing/views.py": r'''
        from django.http import HttpResponse

        from .cards import card


        def share_card(request):
            title = request.GET.get("title", "Untitled")
            return HttpResponse(card(title))  #@sink
     ''', "sharing/cards.py": r'''
        import html


        def card(title):
            shown = title
            return "<div class='card'><h3>" + shown + "</h3></div>"
     '''},
     [("            shown = title", "            shown = html.escape(title)")]),

pair("command-list-join-upload", "command",
     "Arguments including an uploaded filename are kept in a list and joined into a shell command",
     "The list is joined with shlex.join, which quotes every element",
     ["flask", "request.files", "list-container", "join", "os.system"], ["shlex-quote"],
     {"pdf.py": r'''
        import os
        import shlex

        from flask import Flask, request

        app = Flask(__name__)


        @app.post("/pdf/compress")
        def compress():
            upload = request.files["pdf"]
            upload.save("/tmp/upload.pdf")
            argv = ["gs", "-sDEVICE=pdfwrite", "-o", "/srv/pdf/small-" + upload.filename, "/tmp/upload.pdf"]
            code = os.system(" ".join(argv))  #@sink
            return {"ok": code == 0}
     '''},
     [('code = os.system(" ".join(argv))', 'code = os.system(shlex.join(argv))')]),

pair("code-object-attribute", "code",
     "A query value is stored on a plain object's attribute and later evaluated",
     "The attribute holds float() of the value",
     ["flask", "request.args", "attribute", "eval"], ["cast"],
     {"pricing_rules.py": r'''
        from flask import Flask, request

        app = Flask(__name__)


        class Rule:
            expression = "1.0"


        @app.get("/discount")
        def discount():
            rule = Rule()
            rule.expression = request.args.get("multiplier", "1.0")
            price = 100 * eval(rule.expression)  #@sink
            return {"price": price}
     '''},
     [('rule.expression = request.args.get("multiplier", "1.0")',
       'rule.expression = float(request.args.get("multiplier", "1.0"))')]),

pair("redirect-aiohttp-httpfound", "redirect",
     "An aiohttp handler raises HTTPFound to a query-string location",
     "The location must be one of the known return pages",
     ["aiohttp", "request.query", "httpfound"], ["allowlist"],
     {"checkout.py": r'''
        from aiohttp import web

        RETURN_PAGES = ("/cart", "/orders", "/")


        async def finish(request: web.Request) -> web.Response:
            back = request.query.get("return", "/")
            raise web.HTTPFound(location=back)  #@sink


        app = web.Application()
        app.router.add_get("/checkout/finish", finish)
     '''},
     [('''            raise web.HTTPFound(location=back)''', '''            if back not in RETURN_PAGES:
                back = "/"
            raise web.HTTPFound(location=back)''')]),

pair("xss-starlette-htmlresponse", "xss",
     "A Starlette endpoint returns an HTMLResponse that contains a path parameter",
     "The parameter is escaped with html.escape",
     ["starlette", "path_params", "percent-format", "htmlresponse"], ["html-escape"],
     {"teams.py": r'''
        import html

        from starlette.requests import Request
        from starlette.responses import HTMLResponse


        async def team(request: Request) -> HTMLResponse:
            slug = request.path_params["slug"]
            page = "<html><body><h1>Team %s</h1></body></html>" % slug
            return HTMLResponse(page)  #@sink
     '''},
     [('% slug', '% html.escape(slug)')]),

pair("deser-httpserver-rfile-pickle", "deserialization",
     "An http.server handler unpickles the request body read from rfile",
     "The body is parsed with json.loads",
     ["http.server", "rfile", "pickle"], ["safe-function"],
     {"worker_api.py": r'''
        import json
        import pickle
        from http.server import BaseHTTPRequestHandler, HTTPServer


        class Tasks(BaseHTTPRequestHandler):
            def do_POST(self):
                size = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(size)
                task = pickle.loads(raw)  #@sink
                self.send_response(202)
                self.end_headers()
                self.wfile.write(str(len(task)).encode())


        if __name__ == "__main__":
            HTTPServer(("127.0.0.1", 8006), Tasks).serve_forever()
     '''},
     [("task = pickle.loads(raw)", "task = json.loads(raw)")]),

pair("sql-starlette-form-text", "sql",
     "A Starlette form field is concatenated into a SQLAlchemy text() query",
     "The field is bound as a named parameter of text()",
     ["starlette", "request.form", "concat", "sqlalchemy-text"], ["parameterised"],
     {"search.py": r'''
        from sqlalchemy import create_engine, text
        from starlette.requests import Request
        from starlette.responses import JSONResponse

        engine = create_engine("sqlite:///library.db")


        async def search(request: Request) -> JSONResponse:
            form = await request.form()
            with engine.connect() as conn:
                rows = conn.execute(text("SELECT title FROM books WHERE isbn = '" + form["isbn"] + "'")).all()  #@sink
            return JSONResponse({"titles": [r[0] for r in rows]})
     '''},
     [('''text("SELECT title FROM books WHERE isbn = '" + form["isbn"] + "'")''',
       '''text("SELECT title FROM books WHERE isbn = :isbn"), {"isbn": form["isbn"]}''')]),
]
