"""What input can reach through a value: an object looked up by an input key is the stored
object, not the input; a container's items are not its attributes; a file-like object is not
a path. A line marked ``# VULN`` must be a sink of the case's rule; no other line may be
one."""

from __future__ import annotations

import pytest

from .taintutil import marked, sinks

FLASK = ("import io, os\nfrom io import BytesIO\nfrom pathlib import Path\n"
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
    assert sinks(code, rule) == marked(code)
