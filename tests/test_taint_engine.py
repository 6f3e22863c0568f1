"""The taint engine on small programs: one behaviour per case. A line marked ``# VULN`` must
be a sink of the case's rule; no other line may be one."""

from __future__ import annotations

import pytest

from .taintutil import marked, sinks

FLASK = "from flask import Flask, request, redirect, session\napp = Flask(__name__)\n"

CASES: list[tuple[str, str, str]] = [
    ("assignment-chain", "sql-injection", FLASK + """
def view():
    a = request.args["q"]
    b = a
    c = "SELECT * FROM t WHERE x = '" + b + "'"
    cur.execute(c)  # VULN
"""),
    ("bound-parameters-are-not-a-sink", "sql-injection", FLASK + """
def view():
    q = request.args["q"]
    cur.execute("SELECT * FROM t WHERE x = %s", (q,))
    cur.execute("SELECT * FROM t WHERE x = :q", {"q": q})
"""),
    ("fstring-format-percent-join", "sql-injection", FLASK + """
def view():
    q = request.form.get("q")
    cur.execute(f"SELECT {q}")  # VULN
    cur.execute("SELECT {}".format(q))  # VULN
    cur.execute("SELECT %s" % q)  # VULN
    cur.execute(" ".join(["SELECT", q]))  # VULN
    cur.execute("SELECT 1")
"""),
    ("int-cast-sanitizes", "sql-injection", FLASK + """
def view():
    n = int(request.args["n"])
    cur.execute(f"SELECT * FROM t LIMIT {n}")
"""),
    ("augmented-assignment", "sql-injection", FLASK + """
def view():
    sql = "SELECT * FROM t WHERE "
    sql += request.args["w"]
    cur.execute(sql)  # VULN
"""),
    ("overwritten-with-constant", "sql-injection", FLASK + """
def view():
    sql = "SELECT " + request.args["c"]
    sql = "SELECT 1"
    cur.execute(sql)
"""),
    ("constant-folded-branch", "command-injection", FLASK + """
import os
DEBUG = False
def view():
    cmd = request.args["cmd"]
    if DEBUG:
        os.system(cmd)
    if 1 == 2:
        os.system(cmd)
    while False:
        os.system(cmd)
    if True:
        os.system(cmd)  # VULN
"""),
    ("allow-list-guard-early-return", "command-injection", FLASK + """
import os
ALLOWED = {"ls", "df"}
def view():
    cmd = request.args["cmd"]
    if cmd not in ALLOWED:
        return "no", 400
    os.system(cmd)
"""),
    ("allow-list-guard-branch", "command-injection", FLASK + """
import os
def view():
    cmd = request.args["cmd"]
    if cmd in ("ls", "df"):
        os.system(cmd)
    else:
        os.system(cmd)  # VULN
"""),
    ("shlex-quote-sanitizes-only-commands", "command-injection", FLASK + """
import os, shlex
def view():
    name = shlex.quote(request.args["f"])
    os.system("cat " + name)
    cur.execute("SELECT " + name)
"""),
    ("shell-true-condition", "command-injection", FLASK + """
import subprocess
def view():
    f = request.args["f"]
    subprocess.run("convert " + f, shell=True)  # VULN
    subprocess.run(["convert", f, "out.png"])
    subprocess.run([f, "--help"])  # VULN
"""),
    ("container-key-tracked", "command-injection", FLASK + """
import os
def view():
    opts = {"name": request.args["n"], "mode": "fast"}
    os.system("run " + opts["mode"])
    os.system("run " + opts["name"])  # VULN
"""),
    ("list-append-extend-insert", "command-injection", FLASK + """
import os
def view():
    parts = ["echo"]
    parts.append(request.args["x"])
    os.system(" ".join(parts))  # VULN
"""),
    ("tuple-unpacking", "command-injection", FLASK + """
import os
def view():
    a, b = "ls", request.args["x"]
    os.system(a)
    os.system(b)  # VULN
"""),
    ("slicing-propagates", "command-injection", FLASK + """
import os
def view():
    x = request.args["x"][1:10]
    os.system(x)  # VULN
"""),
    ("comprehension-with-filter", "command-injection", FLASK + """
import os
ALLOWED = ("a", "b")
def view():
    raw = request.args.getlist("x")
    os.system(" ".join([v for v in raw if v in ALLOWED]))
    os.system(" ".join([v.strip() for v in raw]))  # VULN
"""),
    ("summary-return-across-functions", "sql-injection", FLASK + """
def build(name):
    return "SELECT * FROM u WHERE n = '" + name + "'"
def safe(name):
    return "SELECT 1"
def view():
    n = request.args["n"]
    cur.execute(build(n))  # VULN
    cur.execute(safe(n))
"""),
    ("summary-sink-in-callee", "sql-injection", FLASK + """
def run(db, sql):
    db.execute(sql)  # VULN
def view():
    run(cur, "SELECT " + request.args["n"])
"""),
    ("callee-with-sanitizer", "command-injection", FLASK + """
import os, shlex
def quoted(x):
    return shlex.quote(x)
def view():
    os.system("ls " + quoted(request.args["d"]))
"""),
    ("self-field-across-methods", "code-injection", """
from flask import request
class Handler:
    def load(self):
        self.expr = request.json["expr"]
    def run(self):
        return eval(self.expr)  # VULN
"""),
    ("http-server-handler", "command-injection", """
import os
from http.server import BaseHTTPRequestHandler
class H(BaseHTTPRequestHandler):
    def do_GET(self):
        os.system("echo " + self.path)  # VULN
"""),
    ("django-view-kwargs", "sql-injection", """
from django.db import connection
def detail(request, slug):
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM p WHERE slug = '%s'" % slug)  # VULN
        cursor.execute("SELECT * FROM p WHERE id = '%s'" % request.GET["id"])  # VULN
"""),
    ("fastapi-typed-params", "sql-injection", """
from fastapi import FastAPI
app = FastAPI()
@app.get("/items/{item_id}")
def item(item_id: int, q: str):
    db.execute(f"SELECT * FROM i WHERE id = {item_id}")
    db.execute(f"SELECT * FROM i WHERE name = '{q}'")  # VULN
"""),
    ("flask-int-converter", "sql-injection", FLASK + """
@app.route("/u/<int:uid>/<name>")
def user(uid, name):
    db.execute(f"SELECT * FROM u WHERE id = {uid}")
    db.execute(f"SELECT * FROM u WHERE name = '{name}'")  # VULN
"""),
    ("local-sources", "code-injection", """
import os, sys
eval(sys.argv[1])  # VULN
eval(input())  # VULN
eval(os.environ["EXPR"])  # VULN
eval("1 + 1")
"""),
    ("yaml-safe-loader", "unsafe-deserialization", FLASK + """
import yaml, pickle
def view():
    data = request.get_data()
    yaml.load(data, Loader=yaml.SafeLoader)
    yaml.safe_load(data)
    yaml.load(data, Loader=yaml.Loader)  # VULN
    pickle.loads(data)  # VULN
"""),
    ("path-containment-check", "path-traversal", FLASK + """
import os
BASE = "/srv/files"
def view():
    name = request.args["name"]
    full = os.path.realpath(os.path.join(BASE, name))
    if not full.startswith(BASE):
        abort(403)
    return open(full).read()
def view2():
    name = request.args["name"]
    return open(os.path.join(BASE, name)).read()  # VULN
"""),
    ("secure-filename", "path-traversal", FLASK + """
from werkzeug.utils import secure_filename
def upload():
    f = request.files["file"]
    f.save("/uploads/" + secure_filename(f.filename))
    f.save("/uploads/" + f.filename)  # VULN
"""),
    ("ssrf-host-allow-list", "ssrf", FLASK + """
import requests
from urllib.parse import urlparse
ALLOWED_HOSTS = {"api.example.com"}
def fetch():
    url = request.args["url"]
    host = urlparse(url).hostname
    if host not in ALLOWED_HOSTS:
        abort(400)
    return requests.get(url).text
def fetch2():
    return requests.get(request.args["url"]).text  # VULN
"""),
    ("redirect-and-location-header", "open-redirect", FLASK + """
def go():
    nxt = request.args.get("next", "/")
    resp = make_response("")
    resp.headers["Location"] = nxt  # VULN
    return redirect(nxt)  # VULN
"""),
    ("xss-escape-and-view-return", "xss", FLASK + """
import html
@app.route("/hello")
def hello():
    name = request.args.get("name", "")
    if name == "x":
        return "<p>" + html.escape(name) + "</p>"
    return f"<p>Hello {name}</p>"  # VULN
@app.route("/json")
def data():
    return {"name": request.args["name"]}
"""),
    ("trust-boundary-session", "trust-boundary", FLASK + """
def login():
    session["role"] = request.form["role"]  # VULN
    session["theme"] = "dark"
"""),
    ("ldap-escape", "ldap-injection", FLASK + """
from ldap.filter import escape_filter_chars
def find(conn):
    u = request.args["u"]
    conn.search_s("dc=x", 2, "(uid=" + escape_filter_chars(u) + ")")
    conn.search_s("dc=x", 2, "(uid=" + u + ")")  # VULN
"""),
    ("xpath-variables", "xpath-injection", FLASK + """
def find(tree):
    n = request.args["n"]
    tree.xpath("//u[@n=$n]", n=n)
    tree.xpath("//u[@n='" + n + "']")  # VULN
"""),
    ("xxe-resolving-parser", "xxe", FLASK + """
from lxml import etree
def parse():
    data = request.get_data()
    safe = etree.XMLParser(resolve_entities=False)
    etree.fromstring(data, safe)
    bad = etree.XMLParser(resolve_entities=True)
    etree.fromstring(data, parser=bad)  # VULN
"""),
    ("try-except-and-with", "command-injection", FLASK + """
import os
def view():
    try:
        x = request.args["x"]
    except KeyError:
        x = "default"
    with open("/tmp/log") as fh:
        os.system(x)  # VULN
"""),
    ("loop-carries-taint", "command-injection", FLASK + """
import os
def view():
    cmd = "echo"
    for part in request.args.getlist("p"):
        cmd = cmd + " " + part
    os.system(cmd)  # VULN
"""),
    ("validator-method", "command-injection", FLASK + """
import os
def view():
    n = request.args["n"]
    if not n.isdigit():
        return "bad"
    os.system("sleep " + n)
"""),
    # What a function returns is a response body only when the framework renders it: a
    # route, or an HTTP-method handler of a class-based view. A DRF filter or permission, an
    # HTTP client's adapter and a helper that takes the request return plain values.
    ("xss-return-of-a-view-only", "xss", """
from flask import Flask, request
from flask.views import MethodView
from rest_framework.filters import BaseFilterBackend
from rest_framework.permissions import BasePermission
app = Flask(__name__)
class Search(BaseFilterBackend):
    def get_search_terms(self, request):
        return request.query_params.get("search", "").split(",")
    def filter_queryset(self, request, queryset, view):
        return queryset.filter(name=request.query_params["q"])
class Owner(BasePermission):
    def has_object_permission(self, request, view, obj):
        return request.query_params.get("owner") or obj.public
class Adapter:
    def send(self, request, timeout=None):
        conn = self.pool.connection_from_url(request.url)
        return conn
def client_ip(request):
    return request.META.get("HTTP_X_FORWARDED_FOR", "")
@app.route("/hello")
def hello():
    return "<p>" + request.args["name"] + "</p>"  # VULN
class Page(MethodView):
    def get(self):
        return "<p>" + request.args["name"] + "</p>"  # VULN
class BasePage(MethodView):
    pass
class Card(BasePage):
    def post(self):
        return "<p>" + request.form["title"] + "</p>"  # VULN
"""),
    ("xss-django-views-build-responses", "xss", """
from django.http import HttpResponse, HttpResponseNotFound, HttpResponseRedirect
from django.views import View
def not_found(request, exception=None):
    back = request.META.get("HTTP_REFERER", "/")
    return HttpResponseNotFound("<a href='%s'>back</a>" % back)  # VULN
def moved(request):
    return HttpResponseRedirect(request.GET.get("to", "/"))
class Greet(View):
    def get(self, request):
        return HttpResponse("<p>" + request.GET["name"] + "</p>")  # VULN
"""),
    ("xss-fastapi-plain-text-route", "xss", """
from fastapi import FastAPI
from fastapi.responses import HTMLResponse, PlainTextResponse
app = FastAPI()
@app.get("/raw/{name}", response_class=PlainTextResponse)
def raw(name: str):
    return f"<p>{name}</p>"
@app.get("/page/{name}", response_class=HTMLResponse)
def page(name: str):
    return f"<p>{name}</p>"  # VULN
"""),
    # One flow into one response is one finding, where the data enters the response: the
    # response object returned later is not a second one.
    ("xss-one-finding-per-response", "xss", FLASK + """
from flask import make_response
@app.route("/a")
def a():
    resp = make_response("<p>" + request.args["q"] + "</p>")  # VULN
    resp.headers["Cache-Control"] = "no-store"
    return resp
@app.route("/b")
def b():
    body = "<p>" + request.args["q"] + "</p>"
    resp = make_response("")
    resp.data = body
    return resp  # VULN
@app.route("/c")
def c():
    resp = make_response("")
    resp.headers["X-Trace"] = request.args["trace"]
    return resp
"""),
    # A file served with its own type, or a response given a type that is not HTML, is not an
    # HTML page built from the input. Request data under the default (HTML) type, an HTML
    # type, or a type the request picks stays a finding.
    ("xss-typed-responses", "xss", FLASK + """
import mimetypes
from flask import Response, make_response, send_file, send_from_directory
@app.route("/file/<name>")
def file(name):
    resp = make_response(send_from_directory("/srv/files", name))
    resp.headers["Cache-Control"] = "no-cache"
    return resp
@app.route("/img")
def img():
    return make_response(send_file("/srv/img/" + request.args["f"]))
@app.route("/diff")
def diff():
    resp = make_response("--- " + request.args["a"])
    resp.headers["Content-Type"] = "text/plain; charset=utf-8"
    return resp
@app.route("/asset/<name>")
def asset(name):
    data, kind = load_asset(name)
    resp = make_response(data)
    resp.headers["Content-type"] = kind
    return resp
@app.route("/dist/<name>")
def dist(name):
    kind = mimetypes.guess_type(name)[0]
    return make_response(read(name), 200, [("Content-Type", kind)])
@app.route("/api")
def api():
    return make_response(request.args["q"], {"Content-Type": "application/json"})
@app.route("/msg/<uuid>")
def msg(uuid):
    return Response("Watch %s not found" % uuid, status=404, mimetype="text/plain")
@app.route("/typed")
def typed():
    resp = make_response(request.args["q"])
    resp.mimetype = "text/plain"
    return resp
@app.route("/set")
def set_type():
    resp = make_response(request.args["q"])
    resp.headers.set("Content-Type", "application/json")
    return resp
@app.route("/html")
def html_page():
    resp = make_response("<p>" + request.args["q"] + "</p>")  # VULN
    resp.headers["Content-Type"] = "text/html; charset=utf-8"
    return resp
@app.route("/echo")
def echo():
    resp = make_response(request.args["body"])  # VULN
    resp.headers["Content-Type"] = request.args["type"]
    return resp
@app.route("/maybe")
def maybe():
    resp = make_response(request.args["q"])  # VULN
    if request.args.get("plain"):
        resp.mimetype = "text/plain"
    return resp
@app.route("/svg")
def svg():
    return Response(request.args["q"], mimetype="image/svg+xml")  # VULN
@app.route("/page")
def page():
    return Response("<p>%s</p>" % request.args["q"])  # VULN
"""),
    ("xss-django-typed-responses", "xss", """
from django.http import HttpResponse
def plain(request):
    return HttpResponse(request.GET["q"], content_type="text/plain")
def later(request):
    resp = HttpResponse(request.GET["q"])
    resp["Content-Type"] = "text/csv"
    return resp
def page(request):
    return HttpResponse("<p>" + request.GET["q"] + "</p>")  # VULN
"""),
]


@pytest.mark.parametrize(("rule", "code"), [(r, c) for _, r, c in CASES],
                         ids=[i for i, _, _ in CASES])
def test_engine_finds_exactly_the_marked_sinks(rule: str, code: str) -> None:
    assert sinks(code, rule) == marked(code)


def test_summary_across_changed_modules() -> None:
    helper = """
    import subprocess
    def run(cmd):
        return subprocess.check_output(cmd, shell=True)
    """
    app = """
    from flask import request
    from tools.shell import run
    def view():
        return run("grep " + request.args["q"])
    """
    from .taintutil import analyse
    hits = analyse({"app.py": app, "tools/shell.py": helper})
    found = {(h.rule, h.sink_path, h.sink_line) for h in hits}
    assert ("command-injection", "tools/shell.py", 4) in found
    flow = next(h for h in hits if h.sink_path == "tools/shell.py").trace
    assert flow.steps[0].path == "app.py" and flow.steps[-1].kind == "sink"


def test_django_class_based_view_url_kwargs() -> None:
    code = """
from django.views import View
class Stats(View):
    def get(self, request, *args, **kwargs):
        slug = self.kwargs["slug"]
        cursor.execute(f"SELECT * FROM s WHERE slug = '{slug}'")  # VULN
"""
    assert sinks(code, "sql-injection") == marked(code)
