"""The abstract state at one program point: the taint of every access path (``x``, ``x.f``,
``x['k']``) and the constant value of variables assigned a literal.

Paths are kept per root variable, so reading ``x`` as a whole unions ``x`` and everything
stored under it, while reading ``x['k']`` sees only that key (or, when the key was never
stored, whatever ``x`` itself holds and its items of unknown key, ``x[*]``: what
``x.append(v)``, ``x.update(m)`` or ``x[expr] = v`` put in it). An attribute ``x.f`` is not
an item: ``x.update(form)`` does not reach it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import ir
from .values import CLEAN, Hit, Taint, union

if TYPE_CHECKING:
    from .spec import SinkSpec

#: Findings of a response's body sink held until the response leaves the function, with the
#: sink they came from (a content type set afterwards may still make the body not HTML).
Pending = tuple[tuple[Hit, "SinkSpec"], ...]

#: The constant value of a variable is unknown.
UNKNOWN = object()
#: The path suffix of a container's items of unknown key.
ITEMS = "[*]"


def _under(key: str, path: str) -> bool:
    return key == path or (key.startswith(path) and key[len(path)] in ".[")


class State:
    """Mutable for speed inside one straight-line block; :meth:`copy` at every branch."""

    __slots__ = ("consts", "derived", "pending", "queried", "types", "vars")

    def __init__(self) -> None:
        self.vars: dict[str, dict[str, Taint]] = {}
        self.consts: dict[str, object] = {}
        self.derived: dict[str, str] = {}  # host = urlparse(url).hostname: host -> url
        self.types: dict[str, str] = {}  # job = Backup(...): job -> "Backup"
        self.queried: set[str] = set()  # url = "/login?next=" + q: url surely holds a "?"
        self.pending: dict[str, Pending] = {}  # resp = make_response(x): resp -> its findings

    def copy(self) -> State:
        new = State()
        new.vars = {root: dict(paths) for root, paths in self.vars.items()}
        new.consts = dict(self.consts)
        new.derived = dict(self.derived)
        new.types = dict(self.types)
        new.queried = set(self.queried)
        new.pending = dict(self.pending)
        return new

    def has(self, root: str) -> bool:
        return root in self.vars or root in self.consts

    def read(self, root: str, path: str = "") -> Taint:
        """The taint of ``root`` + ``path``: the path and everything under it, or, when the
        path was never stored, its closest stored ancestor."""
        paths = self.vars.get(root)
        if not paths:
            return CLEAN
        found = [t for key, t in paths.items() if _under(key, path)]
        if path not in paths:
            ancestor = path
            while ancestor:
                cut = max(ancestor.rfind("."), ancestor.rfind("["))
                item = cut >= 0 and ancestor[cut] == "["
                ancestor = ancestor[:cut] if cut > 0 else ""
                if item and ancestor + ITEMS in paths:
                    found.append(paths[ancestor + ITEMS])  # x['k'] may be an unknown item
                if ancestor in paths:
                    found.append(paths[ancestor])
                    break
            else:
                if "" in paths and path:
                    found.append(paths[""])
        return union(*found)

    def write(self, root: str, path: str, taint: Taint) -> None:
        """Strong update: ``root`` + ``path`` now holds exactly ``taint``."""
        paths = self.vars.setdefault(root, {})
        for key in [k for k in paths if _under(k, path)]:
            del paths[key]
        paths[path] = taint
        if not path:
            self.consts.pop(root, None)
            self.derived.pop(root, None)
            self.types.pop(root, None)
            self.queried.discard(root)

    def weak(self, root: str, path: str, taint: Taint) -> None:
        """Weak update (a rule's propagator into a receiver): add ``taint`` to the path."""
        if not taint:
            return
        paths = self.vars.setdefault(root, {})
        paths[path] = union(paths.get(path, CLEAN), taint)

    def add_item(self, root: str, path: str, taint: Taint) -> None:
        """An item of unknown key (an appended element, ``x[expr] = v``, ``x.update(m)``)
        now may hold ``taint``: the container's items see it, its attributes do not."""
        self.weak(root, path + ITEMS, taint)

    def set_const(self, root: str, value: object) -> None:
        self.write(root, "", CLEAN)
        self.consts[root] = value

    def const(self, root: str) -> object:
        return self.consts.get(root, UNKNOWN)


def join(states: list[State | None]) -> State | None:
    """The state after control flow merges; ``None`` is a path that does not continue."""
    live = [s for s in states if s is not None]
    if not live:
        return None
    if len(live) == 1:
        return live[0]
    out = State()
    roots = {root for s in live for root in s.vars}
    for root in roots:
        keys = {k for s in live for k in s.vars.get(root, {})}
        out.vars[root] = {
            key: union(*(s.vars.get(root, {}).get(key, CLEAN) for s in live)) for key in keys
        }
    first = live[0]
    for name, value in first.consts.items():
        if all(s.consts.get(name, UNKNOWN) == value for s in live[1:]):
            out.consts[name] = value
    for name, origin in first.derived.items():
        if all(s.derived.get(name) == origin for s in live[1:]):
            out.derived[name] = origin
    for name, kind in first.types.items():
        if all(s.types.get(name) == kind for s in live[1:]):
            out.types[name] = kind
    out.queried = set.intersection(*(s.queried for s in live))
    for state in live:  # held on any path: held after the merge
        for name, held in state.pending.items():
            out.pending[name] = tuple(dict.fromkeys((*out.pending.get(name, ()), *held)))
    return out


def access_path(node: ir.Expr, consts: State | None = None) -> tuple[str, str] | None:
    """``(root, path)`` of a Name, an attribute chain or a subscript with a constant key."""
    suffix: list[str] = []
    while True:
        if isinstance(node, ir.Name):
            return node.id, "".join(reversed(suffix))
        if isinstance(node, ir.Attr):
            suffix.append("." + node.name)
            node = node.obj
        elif isinstance(node, ir.Sub) and isinstance(node.key, ir.Const):
            suffix.append(f"[{node.key.value!r}]")
            node = node.obj
        elif (isinstance(node, ir.Sub) and isinstance(node.key, ir.Name) and consts is not None
              and consts.const(node.key.id) is not UNKNOWN):
            suffix.append(f"[{consts.const(node.key.id)!r}]")
            node = node.obj
        else:
            return None
