# Authoring spec: `pair` is provided by build.py when it loads this module.
# A third round: class-based views, split/tuple unpacking, IN-lists, the walrus operator,
# ternaries, augmented string building, two levels of helpers, async helpers.

PAIRS = [
pair("sql-django-cbv-kwargs", "sql",
     "A Django class-based view formats its URL kwarg (self.kwargs) into cursor.execute",
     "The kwarg is passed as a bound parameter",
     ["django", "url-kwarg", "class-based-view", "fstring", "dbapi"], ["parameterised"],
     {"views.py": r'''
        from django.db import connection
        from django.http import JsonResponse
        from django.views import View


        class ArticleStats(View):
            def get(self, request, *args, **kwargs):
                slug = self.kwargs["slug"]
                with connection.cursor() as cursor:
                    cursor.execute(f"SELECT views, likes FROM stats WHERE slug = '{slug}'")  #@sink
                    row = cursor.fetchone()
                return JsonResponse({"views": row[0], "likes": row[1]} if row else {})
     '''},
     [("""cursor.execute(f"SELECT views, likes FROM stats WHERE slug = '{slug}'")""",
       """cursor.execute("SELECT views, likes FROM stats WHERE slug = %s", [slug])""")]),

pair("sql-split-tuple-unpack", "sql",
     "The domain half of a split e-mail address (tuple unpacking) is concatenated into SQL",
     "The domain must be one of the tenant domains",
     ["flask", "request.args", "tuple-unpacking", "split", "concat", "dbapi"], ["allowlist"],
     {"tenants.py": r'''
        import sqlite3

        from flask import Flask, abort, request

        app = Flask(__name__)
        TENANT_DOMAINS = ("acme.test", "globex.test")


        @app.get("/tenant")
        def tenant():
            user, domain = request.args["email"].split("@", 1)
            conn = sqlite3.connect("tenants.db")
            row = conn.execute("SELECT plan FROM tenants WHERE domain = '" + domain + "'").fetchone()  #@sink
            return {"user": user, "plan": row[0] if row else None}
     '''},
     [('''            conn = sqlite3.connect("tenants.db")''', '''            if domain not in TENANT_DOMAINS:
                abort(403)
            conn = sqlite3.connect("tenants.db")''')]),

pair("sql-join-in-clause", "sql",
     "A list of ids from the query string is joined into an IN (...) clause",
     "Each id is converted with int() inside the generator before joining",
     ["flask", "request.args", "join", "generator", "fstring", "dbapi"], ["cast"],
     {"batch.py": r'''
        import sqlite3

        from flask import Flask, request

        app = Flask(__name__)


        @app.get("/orders/batch")
        def batch():
            ids = request.args.getlist("id")
            in_list = ",".join(i for i in ids)
            cur = sqlite3.connect("shop.db").cursor()
            cur.execute(f"SELECT id, total FROM orders WHERE id IN ({in_list})")  #@sink
            return {"orders": cur.fetchall()}
     '''},
     [('in_list = ",".join(i for i in ids)', 'in_list = ",".join(str(int(i)) for i in ids)')]),

pair("sql-walrus-django-body", "sql",
     "A name from a JSON Django request body is bound with the walrus operator and %-formatted into raw SQL",
     "The name is passed in raw()'s params list",
     ["django", "request.body", "walrus", "percent-format", "django-raw"], ["parameterised"],
     {"views.py": r'''
        import json

        from django.http import JsonResponse

        from .models import Customer


        def lookup(request):
            data = json.loads(request.body)
            if (name := data.get("name")):
                people = Customer.objects.raw("SELECT * FROM crm_customer WHERE name = '%s'" % name)  #@sink
                return JsonResponse({"ids": [p.id for p in people]})
            return JsonResponse({"ids": []})
     '''},
     [("""Customer.objects.raw("SELECT * FROM crm_customer WHERE name = '%s'" % name)""",
       """Customer.objects.raw("SELECT * FROM crm_customer WHERE name = %s", [name])""")]),

pair("command-ternary-fastapi-request", "command",
     "A FastAPI Request header chooses the output format through a conditional expression and reaches a shell command",
     "The format must be one of the supported formats",
     ["fastapi", "request.headers", "ternary", "fstring", "subprocess-shell"], ["allowlist"],
     {"render.py": r'''
        import subprocess

        from fastapi import FastAPI, HTTPException, Request

        app = FastAPI()
        FORMATS = ("png", "pdf", "webp")


        @app.post("/render")
        async def render(request: Request):
            wanted = request.headers.get("x-format")
            fmt = wanted if wanted else "png"
            subprocess.run(f"rsvg-convert -f {fmt} -o /tmp/out.{fmt} /tmp/in.svg", shell=True, check=True)  #@sink
            return {"format": fmt}
     '''},
     [('''            fmt = wanted if wanted else "png"
''', '''            fmt = wanted if wanted else "png"
            if fmt not in FORMATS:
                raise HTTPException(status_code=415)
''')]),

pair("xss-augassign-aiohttp-query", "xss",
     "An aiohttp page appends the ref query parameter to its HTML with +=",
     "The parameter is escaped with html.escape before it is appended",
     ["aiohttp", "request.query", "augmented-assignment", "response-body"], ["html-escape"],
     {"debug_page.py": r'''
        import html

        from aiohttp import web


        async def whoami(request: web.Request) -> web.Response:
            agent = request.query.get("ref", "")
            page = "<html><body><ul>"
            page += "<li>Referred by: " + agent + "</li>"
            page += "</ul></body></html>"
            return web.Response(text=page, content_type="text/html")  #@sink
     '''},
     [('page += "<li>Referred by: " + agent + "</li>"', 'page += "<li>Referred by: " + html.escape(agent) + "</li>"')]),

pair("path-two-level-helpers", "path",
     "A form value goes through two helper functions (one builds the path, one opens it)",
     "The view passes the value through secure_filename first",
     ["flask", "request.form", "helper-function", "return-value", "os.path.join", "open"], ["secure-filename"],
     {"themes.py": r'''
        import os

        from flask import Flask, request
        from werkzeug.utils import secure_filename

        app = Flask(__name__)
        THEMES = "/srv/themes"


        def theme_path(name):
            return os.path.join(THEMES, name, "theme.css")


        def load_css(path):
            with open(path, encoding="utf-8") as fh:  #@sink
                return fh.read()


        @app.post("/theme/preview")
        def preview_theme():
            chosen = request.form["theme"]
            return load_css(theme_path(chosen)), 200, {"Content-Type": "text/css"}
     '''},
     [('chosen = request.form["theme"]', 'chosen = secure_filename(request.form["theme"])')]),

pair("ssrf-fastapi-request-query-params", "ssrf",
     "A FastAPI handler reads a feed URL from request.query_params and fetches it with httpx.Client",
     "The feed must be one of the subscribed feeds",
     ["fastapi", "request.query_params", "httpx"], ["allowlist"],
     {"feeds.py": r'''
        import httpx
        from fastapi import FastAPI, HTTPException, Request

        app = FastAPI()
        SUBSCRIBED = {"https://news.example.com/rss", "https://blog.example.com/atom"}


        @app.get("/feeds/refresh")
        def refresh(request: Request):
            feed = request.query_params["feed"]
            with httpx.Client(timeout=10) as client:
                body = client.get(feed).text  #@sink
            return {"bytes": len(body)}
     '''},
     [('''            with httpx.Client(timeout=10) as client:''', '''            if feed not in SUBSCRIBED:
                raise HTTPException(status_code=400)
            with httpx.Client(timeout=10) as client:''')]),

pair("code-async-helper", "code",
     "An aiohttp form field is evaluated by an awaited async helper",
     "The helper parses it with ast.literal_eval",
     ["aiohttp", "post", "async-helper", "eval"], ["safe-function"],
     {"matrix.py": r'''
        import ast

        from aiohttp import web


        async def parse_matrix(text):
            return eval(text)  #@sink


        async def determinant(request: web.Request) -> web.Response:
            form = await request.post()
            m = await parse_matrix(form["matrix"])
            return web.json_response({"det": m[0][0] * m[1][1] - m[0][1] * m[1][0]})
     '''},
     [("return eval(text)", "return ast.literal_eval(text)")]),

pair("deser-slicing-header", "deserialization",
     "A header value with a version prefix is sliced, base64-decoded and unpickled",
     "The decoded value is parsed with json.loads",
     ["flask", "request.headers", "slicing", "pickle"], ["safe-function"],
     {"resume.py": r'''
        import base64
        import json
        import pickle

        from flask import Flask, request

        app = Flask(__name__)


        @app.get("/resume")
        def resume():
            header = request.headers.get("X-Resume-State", "v1:e30=")
            blob = base64.b64decode(header[3:])
            state = pickle.loads(blob)  #@sink
            return {"step": state.get("step", 0)}
     '''},
     [("state = pickle.loads(blob)", "state = json.loads(blob)")]),

pair("redirect-django-query-host", "redirect",
     "A Django view redirects to a URL built from a host given in the query string",
     "The host must be one of the known public hosts",
     ["django", "request.GET", "concat", "httpresponseredirect"], ["allowlist"],
     {"views.py": r'''
        from django.http import HttpResponseBadRequest, HttpResponseRedirect

        PUBLIC_HOSTS = ("www.example.com", "shop.example.com")


        def to_login(request):
            host = request.GET.get("site_host", "www.example.com")
            return HttpResponseRedirect("https://" + host + "/login")  #@sink
     '''},
     [('''            return HttpResponseRedirect(''', '''            if host not in PUBLIC_HOSTS:
                return HttpResponseBadRequest("unknown host")
            return HttpResponseRedirect(''')]),

pair("trust-django-cbv-session", "trust-boundary",
     "A Django class-based view stores a GET value in self.request.session",
     "Only a team from the user's own teams list is stored",
     ["django", "request.GET", "class-based-view", "session"], ["allowlist"],
     {"views.py": r'''
        from django.http import HttpResponseForbidden, JsonResponse
        from django.views import View

        OPEN_TEAMS = ("docs", "community")


        class SwitchTeam(View):
            def get(self, request):
                team = self.request.GET.get("team", "docs")
                self.request.session["team"] = team  #@sink
                return JsonResponse({"team": team})
     '''},
     [('''                self.request.session["team"] = team''', '''                if team not in OPEN_TEAMS:
                    return HttpResponseForbidden()
                self.request.session["team"] = team''')]),

pair("xpath-fastapi-request-header", "xpath",
     "A FastAPI Request header is placed into an lxml XPath query",
     "The header value is passed as an XPath variable",
     ["fastapi", "request.headers", "fstring", "lxml-xpath"], ["parameterised"],
     {"flags.py": r'''
        from fastapi import FastAPI, Request
        from lxml import etree

        app = FastAPI()
        FLAGS = etree.parse("flags.xml")


        @app.get("/flags")
        def flags(request: Request):
            client = request.headers.get("x-client", "web")
            enabled = FLAGS.xpath(f"//flag[client='{client}']/@name")  #@sink
            return {"enabled": [str(n) for n in enabled]}
     '''},
     [("""FLAGS.xpath(f"//flag[client='{client}']/@name")""", """FLAGS.xpath("//flag[client=$client]/@name", client=client)""")]),

pair("ldap-aiohttp-post-percent", "ldap",
     "An aiohttp form field is %-formatted into an ldap3 search filter",
     "The field is escaped with escape_filter_chars",
     ["aiohttp", "post", "percent-format", "ldap3"], ["ldap-escape"],
     {"phonebook.py": r'''
        from aiohttp import web
        from ldap3 import Connection, Server
        from ldap3.utils.conv import escape_filter_chars

        conn = Connection(Server("ldap://ldap.internal"), auto_bind=True)


        async def phone(request: web.Request) -> web.Response:
            form = await request.post()
            surname = form["surname"]
            conn.search("ou=people,dc=corp", "(sn=%s)" % surname, attributes=["telephoneNumber"])  #@sink
            return web.json_response({"numbers": [str(e.telephoneNumber) for e in conn.entries]})
     '''},
     [('surname = form["surname"]', 'surname = escape_filter_chars(form["surname"])')]),

pair("xxe-django-iterparse", "xxe",
     "A Django upload is read with lxml iterparse with DTD loading and entity resolution on",
     "iterparse is called with DTD loading and entity resolution off",
     ["django", "request.FILES", "lxml-iterparse"], ["parser-hardened"],
     {"views.py": r'''
        from django.http import JsonResponse
        from lxml import etree


        def count_products(request):
            upload = request.FILES["catalog"]
            total = 0
            for _, element in etree.iterparse(upload, tag="product", load_dtd=True, resolve_entities=True):  #@sink
                total += 1
                element.clear()
            return JsonResponse({"products": total})
     '''},
     [('load_dtd=True, resolve_entities=True', 'load_dtd=False, resolve_entities=False')]),
]
