"""The frameworks' sources, sinks and escaping defaults, end to end with no model: each case
is a pull request in a real git repository reviewed by the plugin with the bundled pack.

Tornado, GraphQL resolvers (Graphene, Strawberry, Ariadne), FastAPI and aiohttp inputs reach
sinks; what the frameworks escape or encode (a rendered template file, a JSON response), a
regular-expression search, an HTML page quoting a decorator, a tuple of setting names, a
FastAPI route's return value (JSON unless its response class is HTML), a file served with its
own type, a text/plain response, what a DRF filter returns and a test's parameters are not
findings (issue 23: false positives seen on real applications)."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from tests.conftest import ReviewRepo

Build = Callable[..., ReviewRepo]


@dataclass(frozen=True)
class Flow:
    """A pull request adding ``files``; ``rule`` must report at ``at`` (path, line), or
    nowhere in the pull request when ``at`` is None."""

    files: dict[str, str]
    rule: str
    at: tuple[str, int] | None


def _code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


FOUND = {
    "tornado-get-argument": Flow({"handlers.py": _code('''
        import subprocess

        import tornado.web


        class Ping(tornado.web.RequestHandler):
            def get(self):
                host = self.get_argument("host")
                subprocess.run("ping -c1 " + host, shell=True)
        ''')}, "command-injection", ("handlers.py", 9)),
    "tornado-path-capture": Flow({"handlers.py": _code('''
        import subprocess

        from tornado.web import RequestHandler


        class Archive(RequestHandler):
            def post(self, name):
                subprocess.run(f"tar czf /tmp/{name}.tgz /srv", shell=True)
        ''')}, "command-injection", ("handlers.py", 8)),
    "tornado-body-argument": Flow({"handlers.py": _code('''
        import tornado.web


        class Calc(tornado.web.RequestHandler):
            def post(self):
                expr = self.get_body_argument("expr")
                self.write(str(eval(expr)))
        ''')}, "code-injection", ("handlers.py", 7)),
    "graphene-resolver": Flow({"schema.py": _code('''
        import subprocess

        import graphene


        class Query(graphene.ObjectType):
            ping = graphene.String(host=graphene.String())

            def resolve_ping(root, info, host):
                return subprocess.check_output("ping -c1 " + host, shell=True)
        ''')}, "command-injection", ("schema.py", 10)),
    "strawberry-field": Flow({"schema.py": _code('''
        import subprocess

        import strawberry


        @strawberry.type
        class Query:
            @strawberry.field
            def ping(self, info: strawberry.Info, host: str) -> str:
                return subprocess.check_output("ping -c1 " + host, shell=True).decode()
        ''')}, "command-injection", ("schema.py", 10)),
    "ariadne-field": Flow({"resolvers.py": _code('''
        import subprocess

        from ariadne import QueryType

        query = QueryType()


        @query.field("ping")
        def resolve_ping(obj, info, host):
            return subprocess.check_output("ping -c1 " + host, shell=True).decode()
        ''')}, "command-injection", ("resolvers.py", 10)),
    "fastapi-typed-parameter": Flow({"api.py": _code('''
        import subprocess

        from fastapi import FastAPI

        app = FastAPI()


        @app.get("/ping")
        def ping(host: str):
            return {"out": subprocess.check_output("ping -c1 " + host, shell=True)}
        ''')}, "command-injection", ("api.py", 10)),
    "aiohttp-match-info-and-post": Flow({"server.py": _code('''
        import subprocess

        from aiohttp import web


        async def restart(request: web.Request):
            form = await request.post()
            unit = request.match_info["unit"] + form["suffix"]
            subprocess.run("systemctl restart " + unit, shell=True)
            return web.json_response({"ok": True})
        ''')}, "command-injection", ("server.py", 9)),
    "route-named-like-a-test-is-a-view": Flow({"app.py": _code('''
        import subprocess

        from flask import Flask

        app = Flask(__name__)


        @app.route("/probe/<host>")
        def test_probe(host):
            return subprocess.check_output("ping -c1 " + host, shell=True)
        ''')}, "command-injection", ("app.py", 10)),
    "flask-html-response-stays-xss": Flow({"app.py": _code('''
        from flask import Flask, Response, request

        app = Flask(__name__)


        @app.get("/echo")
        def echo():
            q = request.args.get("q", "")
            return Response("<p>%s</p>" % q, mimetype="text/html")
        ''')}, "xss", ("app.py", 9)),
    "fastapi-html-response-class": Flow({"api.py": _code('''
        from fastapi import FastAPI
        from fastapi.responses import HTMLResponse

        app = FastAPI()


        @app.get("/greet", response_class=HTMLResponse)
        def greet(name: str):
            return f"<p>Hello {name}</p>"
        ''')}, "xss", ("api.py", 9)),
    "ldap-search-stays-ldap": Flow({"directory.py": _code('''
        from flask import Flask, request

        app = Flask(__name__)


        @app.get("/people")
        def people():
            conn = app.config["LDAP"]
            conn.search("ou=people,dc=example,dc=com", "(uid=" + request.args["u"] + ")")
            return {"found": len(conn.entries)}
        ''')}, "ldap-injection", ("directory.py", 9)),
}

QUIET = {
    "flask-render-template-html": Flow({"app.py": _code('''
        from flask import Flask, make_response, render_template, request

        app = Flask(__name__)


        @app.get("/hello")
        def hello():
            name = request.args.get("name", "")
            return make_response(render_template("hello.html", name=name))
        ''')}, "xss", None),
    "django-render": Flow({"views.py": _code('''
        from django.http import HttpResponse
        from django.shortcuts import render


        def search(request):
            q = request.GET.get("q", "")
            page = render(request, "search.html", {"q": q})
            return HttpResponse(page.content)
        ''')}, "xss", None),
    "flask-json-mimetype": Flow({"app.py": _code('''
        from flask import Flask, Response, request

        app = Flask(__name__)


        @app.get("/echo")
        def echo():
            q = request.args.get("q", "")
            return Response('{"q": "%s"}' % q, mimetype="application/json")
        ''')}, "xss", None),
    "django-json-content-type": Flow({"views.py": _code('''
        from django.http import HttpResponse


        def echo(request):
            q = request.GET.get("q", "")
            return HttpResponse('{"q": "%s"}' % q, content_type="application/json")
        ''')}, "xss", None),
    "fastapi-return-is-json": Flow({"api.py": _code('''
        from fastapi import FastAPI, Request

        app = FastAPI()


        @app.get("/greet")
        def greet(name: str):
            return f"Hello {name}"


        @app.get("/echo")
        async def echo(request: Request):
            return request.query_params.get("q", "")
        ''')}, "xss", None),
    "served-file-and-text-responses": Flow({"app.py": _code('''
        from flask import Flask, make_response, request, send_from_directory

        app = Flask(__name__)


        @app.get("/shots/<name>")
        def shot(name):
            resp = make_response(send_from_directory("/srv/shots", name))
            resp.headers["Cache-Control"] = "no-cache"
            return resp


        @app.get("/diff")
        def diff():
            resp = make_response("--- " + request.args.get("a", ""))
            resp.headers["Content-Type"] = "text/plain; charset=utf-8"
            return resp
        ''')}, "xss", None),
    "drf-filter-returns-are-not-responses": Flow({"filters.py": _code('''
        from rest_framework.filters import BaseFilterBackend


        class Search(BaseFilterBackend):
            def get_search_terms(self, request):
                return request.query_params.get("search", "").split(",")

            def filter_queryset(self, request, queryset, view):
                return queryset.filter(name__in=self.get_search_terms(request))
        ''')}, "xss", None),
    "re-search-is-not-ldap": Flow({"app.py": _code('''
        import re

        from flask import Flask, request

        app = Flask(__name__)


        @app.get("/check")
        def check():
            text = request.args.get("name", "")
            return {"ok": re.search(r"^[a-z]+$", text) is not None}
        ''')}, "ldap-injection", None),
    "csrf-exempt-quoted-in-html": Flow({"docs/webhooks.html": _code('''
        <h2>Webhooks</h2>
        <pre>
        @csrf_exempt
        def stripe_webhook(request): ...
        </pre>
        ''')}, "csrf-protection-disabled", None),
    "tuple-of-setting-names": Flow({"provider.py": _code('''
        import os

        PROVIDER_KEYS = ("api_key", "api_base")


        def load():
            return {name: os.getenv(name.upper()) for name in ('api_key', 'api_base')}
        ''')}, "hardcoded-secrets", None),
    "pytest-parameters-are-not-route-inputs": Flow({"tests/test_tools.py": _code('''
        import subprocess
        from unittest import mock

        import pytest


        @pytest.fixture(params=["true"])
        def command(request):
            return request.param


        @mock.patch("tools.cli.load")
        def test_runs(load, command):
            subprocess.run(command, shell=True, check=True)


        def test_runs_with_request(request, command):
            subprocess.run(command, shell=True, check=True)
        ''')}, "command-injection", None),
}


def _results(pytester: pytest.Pytester, rule: str) -> set[tuple[str, str, int]]:
    sarif = pytester.path / "review.sarif"
    pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                       "--secreview-rules", ":bundled", f"--secreview-sarif={sarif}",
                       "-k", rule)
    runs = json.loads(sarif.read_text())["runs"]
    return {(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
             r["locations"][0]["physicalLocation"]["region"]["startLine"])
            for run in runs for r in run["results"]}


@pytest.mark.parametrize("flow", FOUND.values(), ids=FOUND.keys())
def test_framework_input_reaches_the_sink(pytester: pytest.Pytester, review_repo: Build,
                                          flow: Flow) -> None:
    review_repo(pr=flow.files)
    assert flow.at is not None
    assert (flow.rule, *flow.at) in _results(pytester, flow.rule)


@pytest.mark.parametrize("flow", QUIET.values(), ids=QUIET.keys())
def test_escaped_or_unrelated_code_is_not_reported(pytester: pytest.Pytester,
                                                   review_repo: Build, flow: Flow) -> None:
    review_repo(pr=flow.files)
    found = [r for r in _results(pytester, flow.rule) if r[0] == flow.rule]
    assert not found
