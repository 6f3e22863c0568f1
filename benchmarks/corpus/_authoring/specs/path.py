# Authoring spec: `pair` is provided by build.py when it loads this module.

PAIRS = [
pair("path-flask-sendfile-join", "path",
     "Flask query filename is joined to the download directory and sent with send_file",
     "The filename goes through werkzeug's secure_filename",
     ["flask", "request.args", "os.path.join", "send_file"], ["secure-filename"],
     {"downloads.py": r'''
        import os

        from flask import Flask, request, send_file
        from werkzeug.utils import secure_filename

        app = Flask(__name__)
        DOWNLOADS = "/srv/downloads"


        @app.get("/download")
        def download():
            name = request.args.get("file", "")
            path = os.path.join(DOWNLOADS, name)
            return send_file(path, as_attachment=True)  #@sink
     '''},
     [("name = request.args.get(\"file\", \"\")", "name = secure_filename(request.args.get(\"file\", \"\"))")]),

pair("path-django-open-realpath", "path",
     "A Django URL kwarg is joined to a report directory and opened",
     "The resolved path must stay inside the report directory (realpath + commonpath)",
     ["django", "url-kwarg", "os.path.join", "open"], ["containment-check"],
     {"__init__.py": "", "views.py": r'''
        import os

        from django.http import Http404, HttpResponse

        REPORTS = "/var/app/reports"


        def report(request, name):
            full = os.path.realpath(os.path.join(REPORTS, name))
            with open(full, encoding="utf-8") as fh:  #@sink
                return HttpResponse(fh.read(), content_type="text/plain")
     ''', "urls.py": r'''
        from django.urls import path

        from . import views

        urlpatterns = [path("reports/<path:name>", views.report)]
     '''},
     [('''            full = os.path.realpath(os.path.join(REPORTS, name))
''', '''            full = os.path.realpath(os.path.join(REPORTS, name))
            if os.path.commonpath([full, REPORTS]) != REPORTS:
                raise Http404("no such report")
''')]),

pair("path-fastapi-pathlib", "path",
     "A FastAPI path parameter is joined with pathlib's / operator and read",
     "The parameter is an integer id, converted with int() before building the name",
     ["fastapi", "route-param", "pathlib", "fstring"], ["cast"],
     {"invoices.py": r'''
        from pathlib import Path

        from fastapi import FastAPI
        from fastapi.responses import PlainTextResponse

        app = FastAPI()
        STORE = Path("/srv/invoices")


        @app.get("/invoices/{invoice:path}", response_class=PlainTextResponse)
        def read_invoice(invoice: str):
            target = STORE / f"{invoice}.txt"
            return target.read_text()  #@sink
     '''},
     [('target = STORE / f"{invoice}.txt"', 'target = STORE / f"{int(invoice)}.txt"')]),

pair("path-upload-save-filename", "path",
     "An uploaded file's client-supplied filename decides where it is written",
     "The filename is passed through secure_filename before it is used",
     ["flask", "request.files", "os.path.join", "file-write"], ["secure-filename"],
     {"upload.py": r'''
        import os

        from flask import Flask, request
        from werkzeug.utils import secure_filename

        app = Flask(__name__)
        UPLOADS = "/srv/uploads"


        @app.post("/upload")
        def upload():
            item = request.files["document"]
            filename = item.filename
            dest = os.path.join(UPLOADS, filename)
            with open(dest, "wb") as out:  #@sink
                out.write(item.read())
            return {"stored": filename}
     '''},
     [("filename = item.filename", "filename = secure_filename(item.filename)")]),

pair("path-remove-allowlist", "path",
     "A Django GET parameter names a cache file that is deleted with os.remove",
     "The name must be one of the known cache files",
     ["django", "request.GET", "concat", "os.remove"], ["allowlist"],
     {"cache_admin.py": r'''
        import os

        from django.http import HttpResponseBadRequest, JsonResponse

        CACHE_DIR = "/var/cache/app/"
        CACHE_FILES = ("pages.db", "thumbs.db", "search.idx")


        def clear_cache(request):
            name = request.GET.get("name", "")
            os.remove(CACHE_DIR + name)  #@sink
            return JsonResponse({"cleared": name})
     '''},
     [('''            os.remove(CACHE_DIR + name)''', '''            if name not in CACHE_FILES:
                return HttpResponseBadRequest("unknown cache file")
            os.remove(CACHE_DIR + name)''')]),

pair("path-env-cli", "path",
     "A CLI tool reads a file named by an environment variable and prints it (lower-severity source)",
     "The tool reads a constant file name; the environment value is only logged",
     ["cli", "os.environ", "open", "low-severity-source"], ["constant"],
     {"show_config.py": r'''
        import os
        import sys


        def main():
            requested = os.environ.get("APP_CONFIG", "app.ini")
            name = requested
            sys.stderr.write(f"config requested: {requested}\n")
            with open(os.path.join("/etc/app", name)) as fh:  #@sink
                print(fh.read())


        if __name__ == "__main__":
            main()
     '''},
     [("name = requested", 'name = "app.ini"')]),

pair("path-aiohttp-fileresponse", "path",
     "An aiohttp static handler serves os.path.join(STATIC, match_info) with FileResponse",
     "The joined path is resolved and must stay under the static root",
     ["aiohttp", "match_info", "os.path.join", "fileresponse"], ["containment-check"],
     {"static.py": r"""
        import os

        from aiohttp import web

        STATIC = "/srv/static"


        async def asset(request: web.Request) -> web.StreamResponse:
            name = request.match_info["name"]
            path = os.path.realpath(os.path.join(STATIC, name))
            return web.FileResponse(path)  #@sink


        app = web.Application()
        app.router.add_get("/assets/{name:.+}", asset)
     """},
     [("""            return web.FileResponse(path)""", """            if os.path.commonpath([STATIC, path]) != STATIC:
                raise web.HTTPNotFound()
            return web.FileResponse(path)""")]),

pair("path-httpserver-self-path", "path",
     "An http.server handler opens ROOT + self.path and returns the file",
     "The requested path is resolved and checked to lie under ROOT",
     ["http.server", "self.path", "concat", "open"], ["containment-check"],
     {"files.py": r"""
        import os
        from http.server import BaseHTTPRequestHandler, HTTPServer

        ROOT = "/srv/www"


        class Files(BaseHTTPRequestHandler):
            def do_GET(self):
                local = os.path.realpath(ROOT + self.path)
                with open(local, "rb") as fh:  #@sink
                    data = fh.read()
                self.send_response(200)
                self.end_headers()
                self.wfile.write(data)


        if __name__ == "__main__":
            HTTPServer(("127.0.0.1", 8003), Files).serve_forever()
     """},
     [("""                with open(local, "rb") as fh:""", """                if not local.startswith(ROOT + os.sep):
                    self.send_error(404)
                    return
                with open(local, "rb") as fh:""")]),

pair("path-removed-secure-filename", "path",
     "The pull request removes secure_filename from an attachment name taken from a Flask view argument",
     "The pull request changes the mimetype and keeps secure_filename",
     ["flask", "view-arg", "os.path.join", "send_file"], ["secure-filename"],
     {"attachments.py": r"""
        import os

        from flask import Flask, send_file
        from werkzeug.utils import secure_filename

        app = Flask(__name__)
        ATTACHMENTS = "/srv/attachments"


        @app.get("/attachments/<path:name>")
        def attachment(name):
            clean = name
            return send_file(os.path.join(ATTACHMENTS, clean), mimetype="application/pdf")  #@sink
     """},
     [("clean = name", "clean = secure_filename(name)")],
     base=[('mimetype="application/pdf"', 'mimetype="application/octet-stream"')]),

pair("path-py312-pathlib-read-bytes", "path",
     "Python 3.12 module with a type alias reads pathlib Path(ROOT) / view arg",
     "The view argument goes through secure_filename",
     ["flask", "view-arg", "py312", "type-alias", "pathlib"], ["secure-filename"],
     {"exports.py": r"""
        from pathlib import Path

        from flask import Flask
        from werkzeug.utils import secure_filename

        app = Flask(__name__)
        EXPORTS = Path("/srv/exports")

        type Blob = bytes


        def load_export(name: str) -> Blob:
            return (EXPORTS / name).read_bytes()  #@sink


        @app.get("/exports/<path:name>")
        def export(name):
            return load_export(name)
     """},
     [("            return load_export(name)", "            return load_export(secure_filename(name))")]),

pair("path-django-tuple-shutil", "path",
     "Django POST source and destination names are unpacked from a tuple and passed to shutil.copy",
     "Both names must be among the known templates",
     ["django", "request.POST", "tuple-unpacking", "shutil"], ["allowlist"],
     {"templates_admin.py": r"""
        import os
        import shutil

        from django.http import HttpResponseBadRequest, JsonResponse

        TEMPLATE_DIR = "/srv/templates"
        KNOWN = ("invoice.html", "receipt.html", "welcome.html")


        def duplicate_template(request):
            src, dst = request.POST["src"], request.POST["dst"]
            shutil.copy(os.path.join(TEMPLATE_DIR, src), os.path.join(TEMPLATE_DIR, dst))  #@sink
            return JsonResponse({"copied": dst})
     """},
     [("""            shutil.copy(""", """            if src not in KNOWN or dst not in KNOWN:
                return HttpResponseBadRequest("unknown template")
            shutil.copy(""")]),

pair("path-starlette-dead-branch", "path",
     "A Starlette path parameter selects the log file when per-user logs are enabled",
     "Per-user logs are disabled by a constant, so the tainted name never reaches open",
     ["starlette", "path_params", "constant-folding", "open"], ["dead-branch"],
     {"logs.py": r"""
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import PlainTextResponse
        from starlette.routing import Route

        PER_USER_LOGS = "yes"


        async def show_log(request: Request) -> PlainTextResponse:
            name = "service.log"
            if PER_USER_LOGS == "yes":
                name = request.path_params["user"] + ".log"
            with open("/var/log/app/" + name) as fh:  #@sink
                return PlainTextResponse(fh.read())


        app = Starlette(routes=[Route("/logs/{user:path}", show_log)])
     """},
     [('PER_USER_LOGS = "yes"', 'PER_USER_LOGS = "no"')]),
]
