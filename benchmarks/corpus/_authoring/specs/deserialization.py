# Authoring spec: `pair` is provided by build.py when it loads this module.

PAIRS = [
pair("deser-flask-pickle-data", "deserialization",
     "A Flask endpoint unpickles the raw request body",
     "The body is parsed as JSON instead",
     ["flask", "request.data", "direct", "pickle"], ["safe-function"],
     {"sync.py": r'''
        import json
        import pickle

        from flask import Flask, request

        app = Flask(__name__)


        @app.post("/sync")
        def sync():
            blob = request.data
            state = pickle.loads(blob)  #@sink
            return {"keys": sorted(state)}
     '''},
     [("state = pickle.loads(blob)", "state = json.loads(blob)")]),

pair("deser-yaml-load-form", "deserialization",
     "A YAML document from a form field is loaded with yaml.load and the full Loader",
     "The document is loaded with yaml.safe_load",
     ["flask", "request.form", "yaml"], ["safe-loader"],
     {"config_upload.py": r'''
        import yaml
        from flask import Flask, request

        app = Flask(__name__)


        @app.post("/config")
        def upload_config():
            text = request.form["config"]
            config = yaml.load(text, Loader=yaml.Loader)  #@sink
            return {"services": list(config.get("services", {}))}
     '''},
     [("config = yaml.load(text, Loader=yaml.Loader)", "config = yaml.safe_load(text)")]),

pair("deser-django-cookie-base64-pickle", "deserialization",
     "A Django view base64-decodes a cookie and unpickles it when legacy carts are enabled",
     "Legacy carts are disabled by a constant, so the unpickling branch cannot run",
     ["django", "request.COOKIES", "constant-folding", "pickle"], ["dead-branch"],
     {"cart.py": r'''
        import base64
        import pickle

        from django.http import JsonResponse

        LEGACY_CARTS = True


        def cart(request):
            items = []
            raw = request.COOKIES.get("cart", "")
            if LEGACY_CARTS and raw:
                items = pickle.loads(base64.b64decode(raw))  #@sink
            return JsonResponse({"items": items})
     '''},
     [("LEGACY_CARTS = True", "LEGACY_CARTS = False")]),

pair("deser-aiohttp-marshal", "deserialization",
     "An aiohttp handler unmarshals a field of the posted form",
     "The field is overwritten with a constant empty payload before marshal.loads",
     ["aiohttp", "post", "marshal"], ["overwritten"],
     {"cache_api.py": r'''
        import marshal

        from aiohttp import web


        async def restore(request: web.Request) -> web.Response:
            form = await request.post()
            payload = form["snapshot"].encode("latin-1")
            snapshot = marshal.loads(payload)  #@sink
            return web.json_response({"entries": len(snapshot)})
     '''},
     [('''            snapshot = marshal.loads(payload)''', '''            payload = marshal.dumps({})
            snapshot = marshal.loads(payload)''')]),

pair("deser-fastapi-jsonpickle", "deserialization",
     "A FastAPI endpoint decodes the request body with jsonpickle",
     "The body is decoded with json.loads",
     ["fastapi", "request-body", "jsonpickle"], ["safe-function"],
     {"jobs.py": r'''
        import json

        import jsonpickle
        from fastapi import FastAPI, Request

        app = FastAPI()


        @app.post("/jobs")
        async def submit(request: Request):
            raw = (await request.body()).decode()
            job = jsonpickle.decode(raw)  #@sink
            return {"queued": str(job)[:40]}
     '''},
     [("job = jsonpickle.decode(raw)", "job = json.loads(raw)")]),

pair("deser-shelve-name", "deserialization",
     "A Flask view opens a shelve database named by the query string (shelve unpickles its values)",
     "The name must be one of the known shelves",
     ["flask", "request.args", "shelve"], ["allowlist"],
     {"stats.py": r'''
        import shelve

        from flask import Flask, abort, request

        app = Flask(__name__)
        SHELVES = ("daily", "weekly")


        @app.get("/stats")
        def stats():
            name = request.args.get("db", "daily")
            with shelve.open("/var/lib/stats/" + name) as db:  #@sink
                return {"total": db.get("total", 0)}
     '''},
     [('''            with shelve.open(''', '''            if name not in SHELVES:
                abort(404)
            with shelve.open(''')]),

pair("deser-removed-safe-load", "deserialization",
     "The pull request replaces yaml.safe_load with yaml.unsafe_load on an uploaded file",
     "The pull request changes the size limit and keeps yaml.safe_load",
     ["flask", "request.files", "yaml"], ["safe-loader"],
     {"import_rules.py": r'''
        import yaml
        from flask import Flask, request

        app = Flask(__name__)
        MAX_BYTES = 65536


        @app.post("/rules/import")
        def import_rules():
            upload = request.files["rules"]
            text = upload.read(MAX_BYTES).decode()
            rules = yaml.unsafe_load(text)  #@sink
            return {"count": len(rules)}
     '''},
     [("rules = yaml.unsafe_load(text)", "rules = yaml.safe_load(text)")],
     base=[("MAX_BYTES = 65536", "MAX_BYTES = 32768")]),

pair("deser-py312-generic-loader", "deserialization",
     "A Python 3.12 generic class (class C[T]) unpickles a Django upload",
     "The same class parses the upload as JSON",
     ["django", "request.FILES", "py312", "type-params", "self-field", "pickle"], ["safe-function"],
     {"imports.py": r'''
        import json
        import pickle

        from django.http import JsonResponse


        class Loader[T]:
            def __init__(self, data: bytes):
                self.data = data

            def load(self) -> T:
                return pickle.loads(self.data)  #@sink


        def import_view(request):
            upload = request.FILES["dump"]
            records = Loader[list](upload.read()).load()
            return JsonResponse({"records": len(records)})
     '''},
     [("return pickle.loads(self.data)", "return json.loads(self.data)")]),
]
