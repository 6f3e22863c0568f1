"""A realistic Python web application, generated deterministically (no network), for the
scanner-speed benchmark: packages of views, services, models, repositories, tasks, clients,
utilities and tests, about 150 lines per module, with the constructs security rules look at
(SQL, subprocess, HTTP clients, YAML, pickle, hashing, templates, request data) at the rates
an ordinary code base has them, most of them safe.

:func:`generate` returns ``{path: text}`` for one revision; ``version=1`` is an older
revision of the same modules (fewer functions, some lines different), so a pull request from
version 1 to version 2 modifies those files and removes lines as well as adding them.
"""

from __future__ import annotations

import random

PACKAGES = ("api", "services", "models", "repositories", "tasks", "clients", "utils", "admin",
            "billing", "accounts", "reports", "integrations", "notifications", "search",
            "storage", "auth")
KINDS = ("views", "service", "models", "repo", "tasks", "client", "helpers", "forms", "schemas",
         "handlers")
NOUNS = ("user", "order", "invoice", "account", "product", "payment", "session", "report",
         "customer", "ticket", "document", "event", "message", "project", "team", "token",
         "shipment", "coupon", "plan", "subscription", "webhook", "export", "audit", "role")
VERBS = ("get", "list", "create", "update", "delete", "sync", "load", "save", "render",
         "validate", "export", "import", "refresh", "archive", "notify", "resolve", "build")

_HEADER = '''"""{title}."""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

{extra_imports}
log = logging.getLogger(__name__)

DEFAULT_PAGE_SIZE = {page}
MAX_RETRIES = {retries}
'''

_DATACLASS = '''

@dataclass
class {cls}:
    """A {noun} as the {pkg} layer sees it."""

    id: int
    name: str
    created_at: datetime = field(default_factory=datetime.utcnow)
    tags: list[str] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {{"id": self.id, "name": self.name, "created_at": self.created_at.isoformat(),
                "tags": list(self.tags), "meta": dict(self.meta)}}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "{cls}":
        return cls(id=int(data["id"]), name=str(data.get("name", "")),
                   tags=list(data.get("tags", [])), meta=dict(data.get("meta", {{}})))
'''

# Plain functions: most code is this.
_PLAIN = (
    '''

def {verb}_{noun}s(items: list[dict[str, Any]], '''
    '''limit: int = DEFAULT_PAGE_SIZE) -> list[dict[str, Any]]:
    """{Verb} {noun}s, newest first, at most ``limit``."""
    ordered = sorted(items, key=lambda item: item.get("created_at", ""), reverse=True)
    result = []
    for item in ordered[:limit]:
        if item.get("deleted"):
            continue
        result.append({{**item, "kind": "{noun}"}})
    log.debug("{verb}_{noun}s: %d of %d", len(result), len(items))
    return result
''',
    '''

def {verb}_{noun}_total(rows: list[dict[str, Any]]) -> float:
    """Sum of the {noun} amounts, ignoring rows without one."""
    total = 0.0
    for row in rows:
        amount = row.get("amount")
        if amount is None:
            continue
        try:
            total += float(amount)
        except (TypeError, ValueError):
            log.warning("bad amount %r in {noun} %s", amount, row.get("id"))
    return round(total, 2)
''',
    '''

def {verb}_{noun}_window(start: datetime, days: int = {n}) -> tuple[datetime, datetime]:
    """The reporting window of {noun}s starting at ``start``."""
    if days <= 0:
        raise ValueError(f"days must be positive, got {{days}}")
    end = start + timedelta(days=days)
    return start, end
''',
    '''

def {verb}_{noun}_config(path: str | None = None) -> dict[str, Any]:
    """Settings for {noun}s: the JSON file at ``path`` over the defaults."""
    settings: dict[str, Any] = {{"page_size": DEFAULT_PAGE_SIZE, "retries": MAX_RETRIES}}
    path = path or os.environ.get("{NOUN}_CONFIG", "")
    if path and os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            settings.update(json.load(handle))
    return settings
''',
    '''

class {cls}Cache:
    """A small in-process cache of {noun}s keyed by id."""

    def __init__(self, ttl: int = {n}) -> None:
        self.ttl = ttl
        self._items: dict[int, tuple[datetime, Any]] = {{}}

    def get(self, key: int) -> Any | None:
        found = self._items.get(key)
        if found is None:
            return None
        stamp, value = found
        if datetime.utcnow() - stamp > timedelta(seconds=self.ttl):
            del self._items[key]
            return None
        return value

    def put(self, key: int, value: Any) -> None:
        self._items[key] = (datetime.utcnow(), value)

    def clear(self) -> None:
        self._items.clear()
''',
    '''

def {verb}_{noun}_payload(obj: Any, fields: tuple[str, ...] = ("id", "name")) -> str:
    """The JSON payload of a {noun} with only ``fields``."""
    data = {{name: getattr(obj, name, None) for name in fields}}
    return json.dumps(data, sort_keys=True, default=str)
''',
)

# Code security rules look at; the safe forms are the usual ones.
_RISKY = (
    ('''

def {verb}_{noun}_by_name(conn: Any, name: str) -> list[Any]:
    """The {noun}s called ``name``."""
    cursor = conn.cursor()
    cursor.execute("SELECT id, name FROM {noun}s WHERE name = %s", (name,))
    return list(cursor.fetchall())
''', 6),
    ('''

def {verb}_{noun}_search(conn: Any, term: str) -> list[Any]:
    """{noun}s whose name contains ``term`` (legacy query builder)."""
    query = "SELECT id FROM {noun}s WHERE name LIKE '%" + term + "%'"
    return list(conn.execute(query))
''', 1),
    ('''

def {verb}_{noun}_archive(directory: str) -> int:
    """Compress the {noun} exports in ``directory``."""
    import subprocess

    result = subprocess.run(["tar", "czf", directory + ".tgz", directory], check=False)
    return result.returncode
''', 3),
    ('''

def {verb}_{noun}_remote(base_url: str, ident: int) -> dict[str, Any]:
    """Fetch a {noun} from the upstream service."""
    import requests

    response = requests.get(f"{{base_url}}/{noun}s/{{ident}}", timeout=10)
    response.raise_for_status()
    return dict(response.json())
''', 4),
    ('''

def {verb}_{noun}_digest(data: bytes) -> str:
    """A content digest of a {noun} export."""
    import hashlib

    return hashlib.sha256(data).hexdigest()
''', 4),
    ('''

def {verb}_{noun}_fingerprint(data: bytes) -> str:
    """A cache key for a {noun} (not a security boundary)."""
    import hashlib

    return hashlib.md5(data).hexdigest()
''', 1),
    ('''

def {verb}_{noun}_yaml(text: str) -> Any:
    """Parse a {noun} definition written in YAML."""
    import yaml

    return yaml.safe_load(text)
''', 3),
    ('''

def {verb}_{noun}_template(name: str, context: dict[str, Any]) -> str:
    """Render the {noun} e-mail template ``name``."""
    from jinja2 import Environment, PackageLoader, select_autoescape

    env = Environment(loader=PackageLoader(__name__), autoescape=select_autoescape())
    return env.get_template(name).render(**context)
''', 2),
    ('''

def {verb}_{noun}_view(request: Any) -> dict[str, Any]:
    """GET /{noun}s/<id>: one {noun}, for its owner."""
    ident = int(request.args.get("id", "0"))
    if not request.user.is_authenticated:
        return {{"error": "login required", "status": 401}}
    return {{"id": ident, "owner": request.user.id}}
''', 5),
    ('''

def {verb}_{noun}_file(request: Any, root: str) -> bytes:
    """Download a {noun} attachment from under ``root``."""
    name = os.path.basename(request.args.get("file", ""))
    with open(os.path.join(root, name), "rb") as handle:
        return handle.read()
''', 2),
    ('''

def {verb}_{noun}_token() -> str:
    """A new {noun} token."""
    import secrets

    return secrets.token_urlsafe(32)
''', 2),
    ('''

def {verb}_{noun}_password(settings: dict[str, Any]) -> str:
    """The {noun} service password, from the environment."""
    password = os.environ.get("{NOUN}_PASSWORD", "")
    if not password:
        raise RuntimeError("set {NOUN}_PASSWORD")
    return password
''', 2),
)
_RISKY_WEIGHTS = [weight for _, weight in _RISKY]

_TEST = '''

def test_{verb}_{noun}_{i}() -> None:
    items = [{{"id": n, "created_at": str(n), "amount": n * {n}}} for n in range(10)]
    assert len(items) == 10
    assert sum(item["amount"] for item in items) == {n} * 45
'''


def _module(rng: random.Random, path: str, version: int) -> str:
    pkg = path.split("/")[1]
    nouns = rng.sample(NOUNS, 3)
    noun = nouns[0]
    is_test = path.startswith("tests/")
    extras = rng.sample(["import re", "import time", "import uuid", "import hashlib",
                         "from collections import defaultdict", "from pathlib import Path"],
                        rng.randint(0, 3))
    text = _HEADER.format(title=f"{pkg.capitalize()} {noun} {path.rsplit('/', 1)[1][:-3]}",
                          extra_imports="".join(f"{line}\n" for line in sorted(extras)),
                          page=rng.choice((20, 25, 50, 100)), retries=rng.randint(2, 6))
    count = rng.randint(4, 10)
    if not is_test:
        text += _DATACLASS.format(cls=noun.capitalize(), noun=noun, pkg=pkg)
    for i in range(count):
        noun = rng.choice(nouns)
        verb = rng.choice(VERBS)
        fields = {"verb": verb, "Verb": verb.capitalize(), "noun": noun, "NOUN": noun.upper(),
                  "cls": f"{noun.capitalize()}{verb.capitalize()}", "n": rng.randint(2, 90),
                  "i": i}
        if is_test:
            template = _TEST
        elif rng.random() < 0.3:
            template = rng.choices([t for t, _ in _RISKY], _RISKY_WEIGHTS)[0]
        else:
            template = rng.choice(_PLAIN)
        # The older revision lacks some functions and has some other constants: the pull
        # request adds functions and changes lines (removed and added).
        dropped, changed = rng.random() < 0.25, rng.random() < 0.15
        if version == 1 and dropped:
            continue
        if version == 1 and changed:
            fields["n"] = int(fields["n"]) + 1
        text += template.format(**fields)
    return text


def layout(files: int, seed: int = 1243) -> list[str]:
    """``files`` module paths: ``app/<package>/<module>.py`` and ``tests/``."""
    rng = random.Random(seed)
    paths: list[str] = []
    while len(paths) < files:
        pkg = PACKAGES[len(paths) % len(PACKAGES)]
        kind = rng.choice(KINDS)
        noun = rng.choice(NOUNS)
        if len(paths) % 10 == 9:
            path = f"tests/{pkg}/test_{noun}_{kind}_{len(paths)}.py"
        else:
            path = f"app/{pkg}/{noun}_{kind}_{len(paths)}.py"
        paths.append(path)
    packages = sorted({p.rsplit("/", 1)[0] for p in paths})
    return [*(f"{p}/__init__.py" for p in packages), *paths]


def generate(files: int, version: int = 2, seed: int = 1243) -> dict[str, str]:
    """The application's modules at ``version`` (1 or 2), ``{path: text}``."""
    out: dict[str, str] = {}
    for path in layout(files, seed):
        if path.endswith("__init__.py"):
            out[path] = f'"""The {path.split("/")[-2]} package."""\n'
            continue
        # Each module's own stream: both versions of a module make the same choices.
        out[path] = _module(random.Random(f"{seed}:{path}"), path, version)
    return out
