"""A small intermediate representation of Python code for the taint engine.

The parser front end (:mod:`.parse`) turns tree-sitter's concrete syntax tree into these
values; the engine never sees tree-sitter nodes. Only what dataflow needs is kept: names,
attributes, subscripts, calls, string building, containers, comprehensions, conditions and
control flow. Anything else becomes :class:`Opaque`, whose value depends on its children (a
conservative choice: taint passes through syntax the engine does not model).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Expr:
    """Base of every expression; ``line`` is 1-based in the analysed file."""

    line: int


@dataclass(frozen=True, slots=True)
class Name(Expr):
    id: str


@dataclass(frozen=True, slots=True)
class Const(Expr):
    value: Any  # str, bytes, int, float, bool or None


@dataclass(frozen=True, slots=True)
class Attr(Expr):
    obj: Expr
    name: str


@dataclass(frozen=True, slots=True)
class Sub(Expr):
    obj: Expr
    key: Expr | None  # None: a slice


@dataclass(frozen=True, slots=True)
class Call(Expr):
    func: Expr
    args: tuple[Expr, ...]
    kwargs: tuple[tuple[str | None, Expr], ...]  # (None, x) is ``**x``


@dataclass(frozen=True, slots=True)
class Op(Expr):
    """String building and arithmetic: ``kind`` is the operator (``+``, ``%``, ``fstring``...)."""

    kind: str
    operands: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Seq(Expr):
    kind: str  # list, tuple, set
    elts: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Dict(Expr):
    items: tuple[tuple[Expr | None, Expr], ...]  # (None, x) is ``**x``


@dataclass(frozen=True, slots=True)
class Comp(Expr):
    """A comprehension: ``elts`` (the element, or key and value) over ``gens``."""

    kind: str
    elts: tuple[Expr, ...]
    gens: tuple[tuple[Expr, Expr, tuple[Expr, ...]], ...]  # (target, iterable, conditions)


@dataclass(frozen=True, slots=True)
class Compare(Expr):
    left: Expr
    ops: tuple[str, ...]
    rights: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class BoolOp(Expr):
    op: str  # and, or
    values: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Not(Expr):
    operand: Expr


@dataclass(frozen=True, slots=True)
class IfExp(Expr):
    test: Expr
    body: Expr
    orelse: Expr


@dataclass(frozen=True, slots=True)
class Walrus(Expr):
    target: str
    value: Expr


@dataclass(frozen=True, slots=True)
class Opaque(Expr):
    """Syntax the engine does not model; its value depends on ``children``."""

    children: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Stmt:
    line: int


@dataclass(frozen=True, slots=True)
class Assign(Stmt):
    targets: tuple[Expr, ...]  # ``a = b = v`` has two; a Seq target is unpacked
    value: Expr


@dataclass(frozen=True, slots=True)
class AugAssign(Stmt):
    target: Expr
    op: str
    value: Expr


@dataclass(frozen=True, slots=True)
class ExprStmt(Stmt):
    value: Expr


@dataclass(frozen=True, slots=True)
class Return(Stmt):
    value: Expr | None


@dataclass(frozen=True, slots=True)
class Raise(Stmt):
    value: Expr | None


@dataclass(frozen=True, slots=True)
class Jump(Stmt):
    kind: str  # break, continue


@dataclass(frozen=True, slots=True)
class If(Stmt):
    test: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class Loop(Stmt):
    target: Expr | None  # None for while
    iter: Expr  # the iterable, or the while condition
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class With(Stmt):
    items: tuple[tuple[Expr, Expr | None], ...]
    body: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class Try(Stmt):
    body: tuple[Stmt, ...]
    handlers: tuple[tuple[str | None, tuple[Stmt, ...]], ...]
    orelse: tuple[Stmt, ...]
    final: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class Branches(Stmt):
    """``match``: any one of the bodies may run."""

    subject: Expr
    bodies: tuple[tuple[Stmt, ...], ...]


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    annotation: str | None
    default: Expr | None
    kind: str  # pos, kwonly, var, varkw


@dataclass(frozen=True, slots=True)
class FuncDef(Stmt):
    name: str
    params: tuple[Param, ...]
    body: tuple[Stmt, ...]
    decorators: tuple[Expr, ...]
    end_line: int


@dataclass(frozen=True, slots=True)
class ClassDef(Stmt):
    name: str
    bases: tuple[Expr, ...]
    body: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class Import(Stmt):
    """``import a.b as c`` / ``from .a import b as c``: (module, name or None, local alias)."""

    names: tuple[tuple[str, str | None, str], ...]
    level: int


@dataclass(frozen=True, slots=True)
class Module:
    """One parsed file: its top-level statements and whether tree-sitter found errors."""

    body: tuple[Stmt, ...]
    errors: int
