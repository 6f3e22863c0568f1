"""Write the model-path corpus (``benchmarks/model_corpus/<case>/``) from the programs below.

Every case is a small Flask application (``notes``) at its base revision plus one pull
request. A vulnerable head marks the lines of its flaw with ``#@flaw`` (stripped on output);
``expect`` is written from the markers, so no line number is typed by hand. Its safe twin is
the same pull request with the one edit that makes it safe. Run
``python benchmarks/model_corpus/_build.py`` after editing and commit the result.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent
MARK = "  #@flaw"

BASE: dict[str, str] = {
    "notes/__init__.py": '''\
"""The notes service: a small Flask application for shared notes and invoices."""

from flask import Flask

from . import auth, views


def create_app(config: dict | None = None) -> Flask:
    app = Flask(__name__)
    app.config.update(SECRET_KEY_FILE="/run/notes/secret", EXPORT_ROOT="/srv/notes/exports")
    app.config.update(config or {})
    app.register_blueprint(auth.bp)
    app.register_blueprint(views.bp)
    return app
''',
    "notes/store.py": '''\
"""In-memory storage for users, notes and invoices (a database in production)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class User:
    id: int
    name: str
    password_hash: str
    failed_logins: int = 0
    locked: bool = False
    signature: str = ""
    webhook_url: str = ""


@dataclass
class Invoice:
    id: int
    owner_id: int
    amount_cents: int
    lines: list[str] = field(default_factory=list)


USERS: dict[int, User] = {}
INVOICES: dict[int, Invoice] = {}


def user_by_name(name: str) -> User | None:
    return next((u for u in USERS.values() if u.name == name), None)


def invoice(invoice_id: int) -> Invoice | None:
    return INVOICES.get(invoice_id)


def invoices_of(user_id: int) -> list[Invoice]:
    return [i for i in INVOICES.values() if i.owner_id == user_id]
''',
    "notes/auth.py": '''\
"""Sign-in and the current user."""

from __future__ import annotations

import functools
import hashlib
import hmac

from flask import Blueprint, abort, g, request, session

from . import store

bp = Blueprint("auth", __name__)
MAX_FAILED_LOGINS = 5


def hash_password(password: str, salt: bytes) -> str:
    return hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 200_000).hex()


def signed_in(view):
    @functools.wraps(view)
    def wrapper(*args, **kwargs):
        user = store.USERS.get(session.get("user_id", -1))
        if user is None:
            abort(401)
        g.user = user
        return view(*args, **kwargs)
    return wrapper


@bp.post("/login")
def login():
    user = store.user_by_name(request.form["name"])
    if user is None:
        abort(401)
    if user.locked:
        abort(423)
    given = hash_password(request.form["password"], b"notes")
    if not hmac.compare_digest(given, user.password_hash):
        user.failed_logins += 1
        if user.failed_logins >= MAX_FAILED_LOGINS:
            user.locked = True
        abort(401)
    user.failed_logins = 0
    session["user_id"] = user.id
    return {"ok": True}
''',
    "notes/views.py": '''\
"""The JSON API: invoices of the signed-in user."""

from __future__ import annotations

from flask import Blueprint, abort, g, request

from . import store
from .auth import signed_in

bp = Blueprint("views", __name__)


def _as_json(invoice: store.Invoice) -> dict:
    return {"id": invoice.id, "amount_cents": invoice.amount_cents, "lines": invoice.lines}


@bp.get("/invoices")
@signed_in
def list_invoices():
    page = int(request.args.get("page", 1))
    mine = store.invoices_of(g.user.id)
    return {"invoices": [_as_json(i) for i in mine[(page - 1) * 20:page * 20]]}


@bp.get("/invoices/<int:invoice_id>")
@signed_in
def show_invoice(invoice_id: int):
    invoice = store.invoice(invoice_id)
    if invoice is None or invoice.owner_id != g.user.id:
        abort(404)
    return _as_json(invoice)
''',
}

VIEWS_HEAD = BASE["notes/views.py"]


def _with(files: dict[str, str], changes: dict[str, str]) -> dict[str, str]:
    """``files`` with ``changes`` (module name under ``notes/`` -> text) written over them."""
    return {**files, **{f"notes/{name}.py": text for name, text in changes.items()}}


# --- 1. an invoice PDF view that forgets the ownership check ---------------------------------

PDF_MODULE = '''\
"""Invoice documents: a plain-text rendering served as a download."""

from __future__ import annotations

from . import store


def render(invoice: store.Invoice) -> bytes:
    body = "\\n".join(invoice.lines)
    total = f"{invoice.amount_cents / 100:.2f}"
    return f"Invoice {invoice.id}\\n\\n{body}\\n\\nTotal: {total}\\n".encode()
'''

PDF_VIEW_VULN = VIEWS_HEAD.replace(
    "from . import store\n", "from . import documents, store\n") + '''

@bp.get("/invoices/<int:invoice_id>/download")
@signed_in
def download_invoice(invoice_id: int):
    invoice = store.invoice(invoice_id)  #@flaw
    if invoice is None:  #@flaw
        abort(404)
    data = documents.render(invoice)
    return data, 200, {"Content-Type": "text/plain",
                       "Content-Disposition": f"attachment; filename=invoice-{invoice.id}.txt"}
'''
PDF_VIEW_SAFE = PDF_VIEW_VULN.replace(
    "    invoice = store.invoice(invoice_id)  #@flaw\n    if invoice is None:  #@flaw\n",
    "    invoice = store.invoice(invoice_id)\n"
    "    if invoice is None or invoice.owner_id != g.user.id:\n")

# --- 2. a signature rendered as a template --------------------------------------------------

PROFILE_BASE_VIEWS = VIEWS_HEAD
MAIL_VULN = '''\
"""E-mails sent to a user's customers, with the user's signature at the end."""

from __future__ import annotations

import jinja2

from . import store

_ENV = jinja2.Environment(autoescape=True)
_BODY = _ENV.from_string(
    "Dear customer,\\n\\nyour invoice {{ invoice.id }} of {{ amount }} is attached.\\n\\n")


def invoice_mail(user: store.User, invoice: store.Invoice) -> str:
    amount = f"{invoice.amount_cents / 100:.2f}"
    body = _BODY.render(invoice=invoice, amount=amount)
    signature = _ENV.from_string(user.signature).render(user=user, invoice=invoice)  #@flaw
    return body + signature
'''
MAIL_SAFE = MAIL_VULN.replace(
    "    signature = _ENV.from_string(user.signature).render(user=user, invoice=invoice)"
    "  #@flaw\n",
    "    signature = _SIGNATURE.render(signature=user.signature)\n").replace(
    "is attached.\\n\\n\")\n",
    "is attached.\\n\\n\")\n_SIGNATURE = _ENV.from_string(\"--\\n{{ signature }}\\n\")\n")
PROFILE_VIEWS = VIEWS_HEAD.replace(
    "from . import store\n", "from . import mail, store\n") + '''

@bp.put("/profile/signature")
@signed_in
def set_signature():
    g.user.signature = request.get_json()["signature"][:2000]
    return {"ok": True}


@bp.get("/invoices/<int:invoice_id>/mail-preview")
@signed_in
def mail_preview(invoice_id: int):
    invoice = store.invoice(invoice_id)
    if invoice is None or invoice.owner_id != g.user.id:
        abort(404)
    return {"text": mail.invoice_mail(g.user, invoice)}
'''

# --- 3. an export folder joined without confinement ----------------------------------------

EXPORT_VULN = '''\
"""Exports of a user's invoices as CSV files under the export root."""

from __future__ import annotations

import csv
import os

from . import store


def export_path(root: str, user: store.User, folder: str) -> str:
    target = os.path.join(root, str(user.id), folder)  #@flaw
    os.makedirs(target, exist_ok=True)  #@flaw
    return os.path.join(target, "invoices.csv")


def write_export(path: str, invoices: list[store.Invoice]) -> int:
    with open(path, "w", newline="") as handle:  #@flaw
        writer = csv.writer(handle)
        writer.writerow(["id", "amount_cents"])
        for invoice in invoices:
            writer.writerow([invoice.id, invoice.amount_cents])
    return len(invoices)
'''
EXPORT_SAFE = EXPORT_VULN.replace(
    "    target = os.path.join(root, str(user.id), folder)  #@flaw\n"
    "    os.makedirs(target, exist_ok=True)  #@flaw\n",
    "    home = os.path.realpath(os.path.join(root, str(user.id)))\n"
    "    target = os.path.realpath(os.path.join(home, folder))\n"
    "    if os.path.commonpath([home, target]) != home:\n"
    "        raise ValueError(\"export folder outside the user's directory\")\n"
    "    os.makedirs(target, exist_ok=True)\n").replace(MARK, "")
EXPORT_VIEWS = VIEWS_HEAD.replace(
    "from flask import Blueprint, abort, g, request\n",
    "from flask import Blueprint, abort, current_app, g, request\n").replace(
    "from . import store\n", "from . import exports, store\n") + '''

@bp.post("/exports")
@signed_in
def create_export():
    folder = request.get_json().get("folder", "latest")
    path = exports.export_path(current_app.config["EXPORT_ROOT"], g.user, folder)
    count = exports.write_export(path, store.invoices_of(g.user.id))
    return {"written": count}
'''

# --- 4. a webhook URL the user configures --------------------------------------------------

HOOKS_VULN = '''\
"""Notify a user's own system when one of their invoices changes."""

from __future__ import annotations

import httpx

from . import store


def notify(user: store.User, invoice: store.Invoice, event: str) -> int | None:
    if not user.webhook_url:
        return None
    payload = {"event": event, "invoice": invoice.id, "amount_cents": invoice.amount_cents}
    reply = httpx.post(user.webhook_url, json=payload, timeout=5)  #@flaw
    return reply.status_code
'''
HOOKS_SAFE = HOOKS_VULN.replace(
    "import httpx\n",
    "import ipaddress\nimport socket\nfrom urllib.parse import urlsplit\n\nimport httpx\n").replace(
    "def notify(",
    '''def _public_https(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme != "https" or not parts.hostname:
        return False
    for info in socket.getaddrinfo(parts.hostname, parts.port or 443):
        if not ipaddress.ip_address(info[4][0]).is_global:
            return False
    return True


def notify(''').replace(
    "    if not user.webhook_url:\n",
    "    if not user.webhook_url or not _public_https(user.webhook_url):\n").replace(
    "  #@flaw", "")
HOOKS_VIEWS = VIEWS_HEAD.replace(
    "from . import store\n", "from . import hooks, store\n") + '''

@bp.put("/profile/webhook")
@signed_in
def set_webhook():
    g.user.webhook_url = request.get_json()["url"]
    return {"ok": True}


@bp.post("/invoices/<int:invoice_id>/paid")
@signed_in
def mark_paid(invoice_id: int):
    invoice = store.invoice(invoice_id)
    if invoice is None or invoice.owner_id != g.user.id:
        abort(404)
    invoice.lines.append("paid")
    return {"delivered": hooks.notify(g.user, invoice, "paid")}
'''

# --- 5. the sign-in refactored, lockout lost -----------------------------------------------

AUTH = BASE["notes/auth.py"]
AUTH_VULN = AUTH.replace('''    user = store.user_by_name(request.form["name"])
    if user is None:
        abort(401)
    if user.locked:
        abort(423)
    given = hash_password(request.form["password"], b"notes")
    if not hmac.compare_digest(given, user.password_hash):
        user.failed_logins += 1
        if user.failed_logins >= MAX_FAILED_LOGINS:
            user.locked = True
        abort(401)
    user.failed_logins = 0
    session["user_id"] = user.id
    return {"ok": True}
''', '''    user = _check_credentials(request.form["name"], request.form["password"])
    session["user_id"] = user.id
    return {"ok": True, "name": user.name}


def _check_credentials(name: str, password: str) -> store.User:
    user = store.user_by_name(name)
    if user is None:
        abort(401)
    given = hash_password(password, b"notes")
    if not hmac.compare_digest(given, user.password_hash):  #@flaw
        abort(401)  #@flaw
    return user
''')
AUTH_SAFE = AUTH_VULN.replace('''    if user is None:
        abort(401)
    given''', '''    if user is None:
        abort(401)
    if user.locked:
        abort(423)
    given''').replace('''  #@flaw
        abort(401)  #@flaw
    return user''', '''
        user.failed_logins += 1
        if user.failed_logins >= MAX_FAILED_LOGINS:
            user.locked = True
        abort(401)
    user.failed_logins = 0
    return user''')

# --- 6. the signing key written with the default mode, then chmod-ed ------------------------

KEYS_VULN = '''\
"""The session signing key: created on first start, read on every start after."""

from __future__ import annotations

import os
import secrets


def load_or_create(path: str) -> bytes:
    if os.path.exists(path):
        with open(path, "rb") as handle:
            return handle.read()
    key = secrets.token_bytes(32)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:  #@flaw
        handle.write(key)  #@flaw
    os.chmod(path, 0o600)
    return key
'''
KEYS_SAFE = KEYS_VULN.replace(
    "    with open(path, \"wb\") as handle:  #@flaw\n        handle.write(key)  #@flaw\n"
    "    os.chmod(path, 0o600)\n",
    "    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)\n"
    "    with os.fdopen(fd, \"wb\") as handle:\n        handle.write(key)\n")
INIT_KEYS = BASE["notes/__init__.py"].replace(
    "from . import auth, views\n", "from . import auth, keys, views\n").replace(
    "    app.config.update(config or {})\n",
    "    app.config.update(config or {})\n"
    "    app.secret_key = keys.load_or_create(app.config[\"SECRET_KEY_FILE\"])\n")

# --- ordinary changes ----------------------------------------------------------------------

PAGED_VIEWS = VIEWS_HEAD.replace('''\
    page = int(request.args.get("page", 1))
    mine = store.invoices_of(g.user.id)
    return {"invoices": [_as_json(i) for i in mine[(page - 1) * 20:page * 20]]}''', '''\
    page = max(1, int(request.args.get("page", 1)))
    size = min(100, max(1, int(request.args.get("size", 20))))
    mine = sorted(store.invoices_of(g.user.id), key=lambda i: i.id)
    chunk = mine[(page - 1) * size:page * size]
    return {"invoices": [_as_json(i) for i in chunk], "page": page, "size": size,
            "total": len(mine)}''')
TOTALS_STORE = BASE["notes/store.py"] + '''

def total_cents(user_id: int) -> int:
    return sum(i.amount_cents for i in invoices_of(user_id))
'''
TOTALS_VIEWS = VIEWS_HEAD + '''

@bp.get("/invoices/total")
@signed_in
def invoices_total():
    return {"total_cents": store.total_cents(g.user.id)}
'''

CASES = [
    # id, description, head files, expect (rule, cwe, also), twin
    ("authz-invoice-download", "Adds a download view for invoice documents",
     _with(BASE, {"views": PDF_VIEW_VULN, "documents": PDF_MODULE}),
     ("missing-authorization", "CWE-639", ["CWE-862", "CWE-284", "security-review"]),
     "authz-invoice-download-safe"),
    ("authz-invoice-download-safe", "Adds a download view for invoice documents",
     _with(BASE, {"views": PDF_VIEW_SAFE, "documents": PDF_MODULE}), None,
     "authz-invoice-download"),
    ("template-mail-signature", "Adds a user signature to invoice e-mails",
     _with(BASE, {"views": PROFILE_VIEWS, "mail": MAIL_VULN}),
     ("code-injection", "CWE-1336", ["CWE-94", "CWE-95", "CWE-74", "xss", "security-review"]),
     "template-mail-signature-safe"),
    ("template-mail-signature-safe", "Adds a user signature to invoice e-mails",
     _with(BASE, {"views": PROFILE_VIEWS, "mail": MAIL_SAFE}), None,
     "template-mail-signature"),
    ("path-export-folder", "Lets users export their invoices as CSV into a named folder",
     _with(BASE, {"views": EXPORT_VIEWS, "exports": EXPORT_VULN}),
     ("path-traversal", "CWE-22", ["CWE-23", "CWE-73", "security-review"]),
     "path-export-folder-safe"),
    ("path-export-folder-safe", "Lets users export their invoices as CSV into a named folder",
     _with(BASE, {"views": EXPORT_VIEWS, "exports": EXPORT_SAFE}), None,
     "path-export-folder"),
    ("ssrf-invoice-webhook", "Notifies a user's system when an invoice is paid",
     _with(BASE, {"views": HOOKS_VIEWS, "hooks": HOOKS_VULN}),
     ("ssrf", "CWE-918", ["security-review"]), "ssrf-invoice-webhook-safe"),
    ("ssrf-invoice-webhook-safe", "Notifies a user's system when an invoice is paid",
     _with(BASE, {"views": HOOKS_VIEWS, "hooks": HOOKS_SAFE}), None,
     "ssrf-invoice-webhook"),
    ("auth-login-refactor", "Moves the credential check of the sign-in into a helper",
     _with(BASE, {"auth": AUTH_VULN}),
     ("security-review", "CWE-307",
      ["CWE-287", "CWE-799", "missing-authorization", "trust-boundary"]),
     "auth-login-refactor-safe"),
    ("auth-login-refactor-safe", "Moves the credential check of the sign-in into a helper",
     _with(BASE, {"auth": AUTH_SAFE}), None, "auth-login-refactor"),
    ("keys-signing-key-file", "Keeps the session signing key in a file across restarts",
     _with(BASE, {"__init__": INIT_KEYS, "keys": KEYS_VULN}),
     ("security-review", "CWE-732", ["CWE-276", "CWE-367", "CWE-362", "CWE-377"]),
     "keys-signing-key-file-safe"),
    ("keys-signing-key-file-safe", "Keeps the session signing key in a file across restarts",
     _with(BASE, {"__init__": INIT_KEYS, "keys": KEYS_SAFE}), None,
     "keys-signing-key-file"),
    ("clean-invoice-paging", "Adds a page size and totals to the invoice list",
     _with(BASE, {"views": PAGED_VIEWS}), None, None),
    ("clean-invoice-total", "Adds an endpoint with the sum of the user's invoices",
     _with(BASE, {"views": TOTALS_VIEWS, "store": TOTALS_STORE}), None, None),
]


def _flaw(text: str) -> tuple[str, list[int]]:
    lines = text.splitlines(keepends=True)
    marked = [n for n, line in enumerate(lines, 1) if line.rstrip("\n").endswith(MARK)]
    return "".join(line.replace(MARK, "") for line in lines), marked


def build(root: Path = ROOT) -> int:
    """Rewrite every case directory under ``root`` from :data:`CASES`; returns the count."""
    root.mkdir(parents=True, exist_ok=True)
    for old in root.iterdir():
        if old.is_dir() and (old / "case.yaml").is_file():
            shutil.rmtree(old)
    for case_id, description, head, kind, twin in CASES:
        case = root / case_id
        for tree, files in (("base", BASE), ("head", head)):
            for rel, text in files.items():
                clean, marked = _flaw(text)
                target = case / tree / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(clean)
        expect = []
        for rel, text in head.items():
            _, marked = _flaw(text)
            if marked:
                assert kind is not None, (case_id, rel)
                rule, cwe, also = kind
                expect.append({"rule": rule, "path": rel, "lines": [marked[0], marked[-1]],
                               "cwe": cwe, "also": also})
        assert bool(expect) == (kind is not None), case_id
        doc: dict[str, object] = {"id": case_id, "description": description,
                                  "vulnerable": bool(expect)}
        if twin:
            doc["twin"] = twin
        doc["tags"] = ["flask", "model-path", "safe-twin" if twin and not expect else
                       "vulnerable" if expect else "ordinary"]
        doc["expect"] = expect
        (case / "case.yaml").write_text(yaml.safe_dump(doc, sort_keys=False, width=100))
    return len(CASES)


if __name__ == "__main__":
    build()
