# Authoring spec: `pair` is provided by build.py when it loads this module.

PAIRS = [
pair("ssrf-flask-requests-preview", "ssrf",
     "A link-preview endpoint fetches the URL given in the query string",
     "The URL must be one of the configured feed URLs",
     ["flask", "request.args", "direct", "requests"], ["allowlist"],
     {"preview.py": r'''
        import requests
        from flask import Flask, abort, request

        app = Flask(__name__)
        FEEDS = {"https://status.example.com/feed", "https://blog.example.com/rss"}


        @app.get("/preview")
        def preview():
            url = request.args["url"]
            resp = requests.get(url, timeout=5)  #@sink
            return {"status": resp.status_code, "length": len(resp.content)}
     '''},
     [('''            url = request.args["url"]
''', '''            url = request.args["url"]
            if url not in FEEDS:
                abort(400)
''')]),

pair("ssrf-django-httpx-host", "ssrf",
     "A Django health probe calls httpx on a host taken from the POST body",
     "The host must be one of the known service hosts",
     ["django", "request.POST", "fstring", "httpx"], ["allowlist"],
     {"probe.py": r'''
        import httpx
        from django.http import HttpResponseBadRequest, JsonResponse

        SERVICES = ("billing.internal", "search.internal")


        def probe(request):
            host = request.POST.get("host", "")
            reply = httpx.get(f"http://{host}/healthz", timeout=3.0)  #@sink
            return JsonResponse({"healthy": reply.status_code == 200})
     '''},
     [('''            reply = httpx.get(''', '''            if host not in SERVICES:
                return HttpResponseBadRequest("unknown service")
            reply = httpx.get(''')]),

pair("ssrf-urllib-webhook", "ssrf",
     "A webhook test endpoint opens the callback URL from a JSON body with urllib",
     "The callback is a constant test URL; the body value is only echoed",
     ["flask", "request.get_json", "dict-constant-key", "urllib"], ["constant"],
     {"webhooks.py": r'''
        import urllib.request

        from flask import Flask, request

        app = Flask(__name__)


        @app.post("/webhooks/test")
        def test_webhook():
            config = request.get_json()
            target = config["callback"]
            with urllib.request.urlopen(target, timeout=5) as reply:  #@sink
                code = reply.status
            return {"callback": config["callback"], "status": code}
     '''},
     [('target = config["callback"]', 'target = "https://hooks.example.com/test"')]),

pair("ssrf-aiohttp-client", "ssrf",
     "An aiohttp proxy endpoint fetches a query-string URL with aiohttp.ClientSession",
     "The upstream is chosen only from the mirror allow-list",
     ["aiohttp", "request.query", "aiohttp-client"], ["allowlist"],
     {"proxy.py": r'''
        import aiohttp
        from aiohttp import web

        MIRRORS = ("https://mirror-a.example.org/", "https://mirror-b.example.org/")


        async def fetch(request: web.Request) -> web.Response:
            upstream = request.query.get("upstream", MIRRORS[0])
            async with aiohttp.ClientSession() as client:
                async with client.get(upstream) as reply:  #@sink
                    body = await reply.read()
            return web.Response(body=body)
     '''},
     [('''            async with aiohttp.ClientSession() as client:''', '''            if upstream not in MIRRORS:
                raise web.HTTPBadRequest()
            async with aiohttp.ClientSession() as client:''')]),

pair("ssrf-fastapi-self-field", "ssrf",
     "A notifier object keeps a FastAPI query URL in self.endpoint and posts to it",
     "The endpoint field is overwritten with the configured URL",
     ["fastapi", "route-param", "self-field", "requests"], ["overwritten"],
     {"notify.py": r'''
        import requests
        from fastapi import FastAPI

        app = FastAPI()
        DEFAULT_ENDPOINT = "https://notify.example.com/v1/send"


        class Notifier:
            def __init__(self, endpoint: str):
                self.endpoint = endpoint

            def send(self, text: str) -> int:
                return requests.post(self.endpoint, json={"text": text}, timeout=5).status_code  #@sink


        @app.post("/notify")
        def notify(endpoint: str, text: str):
            notifier = Notifier(endpoint)
            return {"status": notifier.send(text)}
     '''},
     [('''            notifier = Notifier(endpoint)
''', '''            notifier = Notifier(endpoint)
            notifier.endpoint = DEFAULT_ENDPOINT
''')]),

pair("ssrf-starlette-async-httpx", "ssrf",
     "A Starlette image proxy fetches the query-string URL with httpx.AsyncClient when proxying is enabled",
     "Proxying is disabled by a constant, so the fetch branch cannot run",
     ["starlette", "request.query_params", "constant-folding", "httpx"], ["dead-branch"],
     {"images.py": r'''
        import httpx
        from starlette.requests import Request
        from starlette.responses import Response

        PROXY_ENABLED = True
        PLACEHOLDER = b"GIF89a"


        async def image(request: Request) -> Response:
            src = request.query_params.get("src", "")
            data = PLACEHOLDER
            if PROXY_ENABLED:
                async with httpx.AsyncClient() as client:
                    data = (await client.get(src)).content  #@sink
            return Response(data, media_type="image/gif")
     '''},
     [("PROXY_ENABLED = True", "PROXY_ENABLED = False")]),

pair("ssrf-removed-allowlist", "ssrf",
     "The pull request drops the allow-list check before requests.get on an avatar URL",
     "The pull request changes the timeout and keeps the allow-list check",
     ["flask", "request.form", "requests"], ["prefix-allowlist"],
     {"avatars.py": r'''
        import requests
        from flask import Flask, abort, request

        app = Flask(__name__)
        AVATAR_HOSTS = ("https://gravatar.example.com/avatar/", "https://cdn.example.com/a/")
        TIMEOUT = 4


        @app.post("/avatar")
        def set_avatar():
            source = request.form["avatar_url"]
            image = requests.get(source, timeout=TIMEOUT).content  #@sink
            return {"bytes": len(image)}
     '''},
     [('''            image = requests.get(''', '''            if not source.startswith(AVATAR_HOSTS):
                abort(400)
            image = requests.get(''')],
     base=[("TIMEOUT = 4", "TIMEOUT = 10")]),

pair("ssrf-py312-generic-fetch", "ssrf",
     "A Python 3.12 generic fetch helper (def f[T]) is called with a header URL",
     "The header only selects among known backends",
     ["flask", "request.headers", "py312", "type-params", "helper-function", "requests"], ["allowlist"],
     {"gateway.py": r'''
        from collections.abc import Callable

        import requests
        from flask import Flask, abort, request

        app = Flask(__name__)
        BACKENDS = ("http://10.0.0.5:8080/api", "http://10.0.0.6:8080/api")


        def fetch[T](url: str, parse: Callable[[bytes], T]) -> T:
            return parse(requests.get(url, timeout=5).content)  #@sink


        @app.get("/gateway")
        def gateway():
            backend = request.headers.get("X-Backend", BACKENDS[0])
            return {"size": fetch(backend, len)}
     '''},
     [('''            return {"size": fetch(backend, len)}''', '''            if backend not in BACKENDS:
                abort(400)
            return {"size": fetch(backend, len)}''')]),

pair("ssrf-env-cli-requests", "ssrf",
     "A sync script downloads from a URL taken from the environment (lower-severity source)",
     "The script downloads from a constant URL; the environment only names the output file",
     ["cli", "os.environ", "requests", "low-severity-source"], ["constant"],
     {"sync_prices.py": r'''
        import os

        import requests


        def main():
            source = os.environ.get("PRICE_FEED", "https://prices.example.com/latest.csv")
            out = os.environ.get("PRICE_FILE", "prices.csv")
            data = requests.get(source, timeout=30).text  #@sink
            with open("/var/lib/prices/" + os.path.basename(out), "w") as fh:
                fh.write(data)


        if __name__ == "__main__":
            main()
     '''},
     [('source = os.environ.get("PRICE_FEED", "https://prices.example.com/latest.csv")',
       'source = "https://prices.example.com/latest.csv"')]),

pair("ssrf-list-append-loop", "ssrf",
     "Mirror URLs from a form are appended to a list and each is probed with requests.head",
     "Each mirror is checked against the allow-list before it is appended",
     ["flask", "request.form", "list-append", "loop", "requests"], ["allowlist"],
     {"mirrors.py": r'''
        import requests
        from flask import Flask, request

        app = Flask(__name__)
        KNOWN = {"https://a.mirror.example", "https://b.mirror.example"}


        @app.post("/mirrors/check")
        def check_mirrors():
            targets = []
            for value in request.form.getlist("mirror"):
                targets.append(value)
            alive = []
            for target in targets:
                if requests.head(target, timeout=3).ok:  #@sink
                    alive.append(target)
            return {"alive": alive}
     '''},
     [('''                targets.append(value)''', '''                if value in KNOWN:
                    targets.append(value)''')]),
]
