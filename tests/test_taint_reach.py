"""What input can reach through a value: an object looked up by an input key is the stored
object, not the input; a container's items are not its attributes; a file-like object is not
a path; input only in a URL's query after an app route or a constant is not a redirect
target; a URL path segment (no '/') as a path's last component stays in the directory on
POSIX. A line marked ``# VULN`` must be a sink of the case's rule, a line marked ``# LOW`` a
contained one; no other line may be one."""

from __future__ import annotations

import pytest

from pytest_secreview.analysis.session import ChangedFile, TaintSession
from pytest_secreview.evaluation.dataflow import run_taint

from .rulecases import added_file, rules_by_id
from .taintutil import analyse, bundled_specs, marked

FLASK = ("import io, os, shutil\nfrom io import BytesIO\nfrom pathlib import Path\n"
         "from flask import Flask, request, redirect, send_file\napp = Flask(__name__)\n")

CASES: list[tuple[str, str, str]] = [
    ("a-lookup-by-an-input-key-is-the-stored-object", "path-traversal", FLASK + """
STORE = {}
@app.route("/item/<path:key>")
def item(key):
    entry = STORE.get(key)
    open(os.path.join(entry.data_dir, "latest.html"))
    held = STORE["items"].get(request.args["id"], None)
    open(held.path)
    gone = STORE.pop(key)
    Path(gone.data_dir).read_text()
    kept = STORE.setdefault(key, {})
    open(kept["path"])
    row = db.items.get(key)
    open(row.path)
"""),
    ("a-lookup-keeps-the-input-of-an-input-container-and-default", "path-traversal",
     FLASK + """
@app.route("/files")
def files():
    name = request.args.get("name")
    open(name)  # VULN
    opts = dict(request.form)
    open(opts.get("file"))  # VULN
    open(STORE.get("x", request.args["fallback"]))  # VULN
    open(os.environ.get(request.args["var"]))  # VULN
"""),
    ("a-helper-looking-up-by-its-parameter", "path-traversal", FLASK + """
WATCHES = {}
def find(uuid):
    return WATCHES.get(uuid)
def pick(table, uuid):
    return table.get(uuid)
@app.route("/w/<path:uuid>")
def watch(uuid):
    open(find(uuid).data_dir)
    open(pick(WATCHES, uuid).data_dir)
    open(pick(request.args, "path"))  # VULN
"""),
    ("a-container-updated-from-input-keeps-its-attributes", "path-traversal", FLASK + """
@app.route("/preview/<path:uuid>", methods=["POST"])
def preview(uuid):
    watch = load_watch()
    watch.update(request.form)
    open(watch.data_dir)
    open(watch["path"])  # VULN
    open(watch.get("path"))  # VULN
    for value in watch.values():
        open(value)  # VULN
    names = []
    names.append(request.form["n"])
    open(names[0])  # VULN
    seen = {}
    seen[request.form["k"]] = request.form["v"]
    open(seen["anything"])  # VULN
"""),
    ("input-in-the-query-of-an-app-route-or-constant-url", "open-redirect", FLASK + """
from urllib.parse import parse_qs, quote, urlencode, urlparse
from flask import make_response, url_for
def login_url(back):
    return "/login?next=" + back
def pass_through(url):
    return url
@app.route("/guard")
def guard():
    nxt = urlencode({"next": str(request.url)})
    redirect(f"{url_for('login')}?{nxt}")
    redirect(url=url_for("login") + "?next=" + quote(request.path))
    target = "/login?next=" + request.args["back"]
    target += "&again=" + request.args["x"]
    redirect(target)
    redirect("/search#%s" % request.args["q"])
    redirect("?page=" + request.args["p"])
    redirect(login_url(request.args["b"]))
    redirect(pass_through(target))
    redirect(request.args["next"])  # VULN
    redirect(request.args["next"] + "?from=login")  # VULN
    redirect(f"/{request.args['path']}")  # VULN
    redirect("%s?next=%s" % (request.args["to"], "/"))  # VULN
    redirect(f"/go?{request.args['q']}".split("?")[1])  # VULN
    redirect(parse_qs(urlparse(target).query)["back"][0])  # VULN
    redirect(pass_through(request.args["next"]))  # VULN
    redirect(target[target.index("=") + 1:])  # VULN
    maybe = ("/login?next=" + request.args["b"]) if request.args.get("c") else "/"
    redirect(maybe + request.args["x"])  # VULN
    if request.args.get("c"):
        back = "/login?next=" + request.args["b"]
    else:
        back = "/"
    redirect(back + request.args["y"])  # VULN
    again = "/login?next=" + request.args["b"]
    again = again + "&to=" + request.args["t"]
    resp = make_response("")
    resp.headers["Location"] = again
"""),
    ("a-url-segment-as-a-files-last-component", "path-traversal", FLASK + """
BASE = "/srv/data"
def under(name):
    return os.path.join(BASE, name)
def read(name):
    return open(os.path.join(BASE, name))  # VULN # LOW
@app.route("/tags/<string:uuid>")
def tag(uuid):
    tag_dir = os.path.join(BASE, uuid)
    os.unlink(os.path.join(tag_dir, "tag.json"))  # VULN
    shutil.rmtree(tag_dir)  # VULN
    open(Path(BASE) / uuid / "tag.json")  # VULN
    open(uuid + "/tag.json")  # VULN
    open(os.path.join(BASE, uuid.replace("-", "/")))  # VULN
    open(os.path.join(BASE, request.args["name"]))  # VULN
@app.get("/files/{name}")
def files(name: str):
    return Path(BASE, name).read_bytes()  # LOW
@app.route("/pages/<page>")
@app.route("/pages/<path:page>")
def pages(page):
    open(os.path.join(BASE, page))  # VULN
@app.route("/show/<name>")
def show(name):
    open(os.path.join(BASE, name))  # LOW
    open(os.path.join(BASE, f"{name}.html"))  # LOW
    open(Path(BASE) / str(name))  # LOW
    open(under(name))  # LOW
    target = BASE + "/" + name
    open(target)  # LOW
    read(name)
    read(request.args["name"])
    open(os.path.join(BASE, name, "x"))  # VULN
    os.listdir(os.path.join(BASE, name))  # VULN
    open(BASE + "/" + name + "/index.html")  # VULN
    open(under(name + "/x"))  # VULN
"""),
    ("a-file-like-object-is-not-a-path", "path-traversal", FLASK + """
@app.route("/export/<path:key>")
def export(key):
    data = request.args["body"].encode()
    buffer = BytesIO(data)
    send_file(buffer, download_name=key + ".html")
    send_file(io.StringIO(request.args["body"]), as_attachment=True)
    stream = io.BytesIO(data)
    send_file(path_or_file=stream)
    with open("/srv/report.pdf", "rb") as fh:
        send_file(fh, download_name=key)
    send_file(os.path.join("/srv", key))  # VULN
    target = BytesIO(data)
    target = os.path.join("/srv", key)
    send_file(target)  # VULN
"""),
]


@pytest.mark.parametrize(("rule", "code"), [(r, c) for _, r, c in CASES],
                         ids=[i for i, _, _ in CASES])
def test_engine_finds_exactly_the_marked_sinks(rule: str, code: str) -> None:
    """``# VULN`` lines are flows at the rule's severity, ``# LOW`` lines flows whose input
    is only a path's last component with no '/' (contained on POSIX)."""
    found = flows(code, rule)
    assert {line for line, contained in found if not contained} == marked(code)
    assert {line for line, contained in found if contained} == marked(code, "# LOW")


SERVED = """\
import os, sys
from flask import Flask, request
app = Flask(__name__)
def read(name):
    return open(os.path.join("/srv/data", name))
@app.route("/show/<name>")
def show(name):
    return read(name)
@app.route("/any")
def any_file():
    return read(request.args["name"])
@app.route("/only/<name>")
def only(name):
    return open(os.path.join("/srv/data", name)).read()
def main():
    return open(sys.argv[1]).read()
"""


def test_severity_by_reach_and_shape() -> None:
    """The network's input at the rule's severity; the operator's at most MEDIUM; a URL
    segment as a file's last component at LOW; one finding per sink, the most severe flow."""
    rule = rules_by_id()["path-traversal"]
    lines = tuple(SERVED.splitlines())
    session = TaintSession(Files({"app.py": SERVED.encode()}), bundled_specs(),
                           [ChangedFile("app.py", None, frozenset(range(1, len(lines) + 1)))])
    flows = session.flows("path-traversal", "app.py")
    assert sorted((f.sink_line, f.origin, f.severity) for f in flows) == [
        (5, "web", "CRITICAL"), (5, "web", "LOW"), (14, "web", "LOW"), (16, "local", "MEDIUM")]
    findings, why = run_taint(rule, added_file("app.py", lines), session)
    assert why is None
    assert sorted((f.line, f.severity.value) for f in findings) == [
        (5, "CRITICAL"), (14, "LOW"), (16, "MEDIUM")]
    low = next(f for f in findings if f.line == 14)
    assert "last component only" in low.title


class Files:
    """One revision held in memory (the session's FileSource interface)."""

    def __init__(self, head: dict[str, bytes]) -> None:
        self._head = head

    def head(self, path: str) -> bytes | None:
        return self._head.get(path)

    def base(self, path: str) -> bytes | None:
        return None


def flows(code: str, rule: str) -> set[tuple[int, bool]]:
    return {(h.sink_line, h.shape is not None) for h in analyse({"app.py": code})
            if h.rule == rule and h.sink_path == "app.py"}
