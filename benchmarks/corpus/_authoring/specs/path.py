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
     {"views.py": r'''
        import os

        from django.http import Http404, HttpResponse

        REPORTS = "/var/app/reports"


        def report(request, name):
            full = os.path.realpath(os.path.join(REPORTS, name))
            with open(full, encoding="utf-8") as fh:  #@sink
                return HttpResponse(fh.read(), content_type="text/plain")
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


        @app.get("/invoices/{invoice}", response_class=PlainTextResponse)
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
]
