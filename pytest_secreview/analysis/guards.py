"""What a condition proves: on the branch where it holds (or fails), a value checked
against an allow-list or a validator is clean, and a path checked for containment carries the
``containment`` sanitizer."""

from __future__ import annotations

from typing import Protocol

from . import ir
from .catalogue import CONTAINMENT_METHODS, VALIDATOR_CALLS, VALIDATOR_METHODS, any_match
from .spec import glob_match
from .state import UNKNOWN, State, access_path
from .values import CLEAN, Taint, clear


class Evaluator(Protocol):
    """What a condition needs of the expression evaluator (:class:`.exprs.Evaluator`)."""

    state: State

    def eval(self, node: ir.Expr) -> Taint:
        """The taint of ``node``."""

    def const(self, node: ir.Expr) -> object:
        """The constant value of ``node``, or ``UNKNOWN``."""

    def dotted(self, node: ir.Expr) -> str | None:
        """The import-resolved dotted name of ``node``."""


def refine(run: Evaluator, test: ir.Expr, truth: bool) -> None:
    """Narrow the state to the paths where ``test`` is ``truth``: a value checked against
    an allow-list or a validator is clean there; a path checked for containment is marked
    with the ``containment`` sanitizer."""
    if isinstance(test, ir.Not):
        refine(run, test.operand, not truth)
    elif isinstance(test, ir.BoolOp):
        if (test.op == "and") == truth:
            for value in test.values:
                refine(run, value, truth)
    elif isinstance(test, ir.Compare) and len(test.ops) == 1:
        op, right = test.ops[0], test.rights[0]
        if (op == "in" and truth) or (op == "not in" and not truth):
            if not run.eval(right):
                validate(run, test.left)
        elif (op in ("==", "is") and truth) or (op in ("!=", "is not") and not truth):
            if _is_commonpath(test.left, run):
                for arg in _commonpath_args(test.left):
                    validate(run, arg, "containment")
            elif run.const(right) is not UNKNOWN:
                validate(run, test.left)
    elif isinstance(test, ir.Call) and truth:
        name = run.dotted(test.func) or ""
        method = test.func.name if isinstance(test.func, ir.Attr) else ""
        if method in VALIDATOR_METHODS and isinstance(test.func, ir.Attr):
            validate(run, test.func.obj)
        elif method in CONTAINMENT_METHODS and isinstance(test.func, ir.Attr):
            validate(run, test.func.obj, "containment")
        elif any_match(VALIDATOR_CALLS, name):
            for arg in test.args:
                validate(run, arg)


def validate(run: Evaluator, node: ir.Expr, tag: str | None = None) -> None:
    if isinstance(node, ir.Seq):
        for elt in node.elts:
            validate(run, elt, tag)
        return
    if isinstance(node, ir.Call):
        # realpath(p).startswith(base), urlparse(u).hostname in ALLOWED, x.lower() in
        # ALLOWED: the check is on a value derived from p, u, x.
        for arg in node.args:
            validate(run, arg, tag)
        if not node.args and isinstance(node.func, ir.Attr):
            validate(run, node.func.obj, tag)
        return
    where = access_path(node, run.state)
    if where is None:
        if isinstance(node, ir.Attr):
            validate(run, node.obj, tag)
        return
    root, path = where
    targets = [(root, path)]
    if root in run.state.derived:
        targets.append((run.state.derived[root], ""))
    for r, p in targets:
        if tag is None:
            run.state.write(r, p, CLEAN)
        else:
            run.state.write(r, p, clear(run.state.read(r, p), tag))


def _is_commonpath(node: ir.Expr, run: Evaluator) -> bool:
    return isinstance(node, ir.Call) and glob_match("*commonpath", run.dotted(node.func) or "")


def _commonpath_args(node: ir.Expr) -> list[ir.Expr]:
    if isinstance(node, ir.Call) and node.args and isinstance(node.args[0], ir.Seq):
        return list(node.args[0].elts)
    return list(node.args) if isinstance(node, ir.Call) else []
