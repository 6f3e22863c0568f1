"""Expression semantics of the taint engine: what taint an expression carries, which sinks a
call reaches, and what a condition proves (allow-lists, validators, containment checks)."""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from typing import Any, Protocol

from . import guards, ir
from .catalogue import (
    ARGV_CALLS,
    CLEAN_CALLS,
    CONFIGURED_CALLS,
    GETATTR_CALLS,
    IMPORT_CALLS,
    LOOKUPS,
    MUTATORS,
    PATH_JOINS,
    RESPONSE,
    RESPONSE_CALLS,
    SHAPE_KEEPING,
    SHELL_FLAGS,
    SHELLS,
    TYPE_ATTRS,
    any_match,
)
from .spec import Catalogue, Condition, SinkSpec, TaintSpec, glob_match
from .state import UNKNOWN, Pending, State, access_path
from .values import (
    CLEAN,
    Hit,
    Step,
    Taint,
    Trace,
    clear,
    extend,
    reshape,
    shape_of,
    shaped,
    splice_shapes,
    union,
)

#: Calls whose result is a structured view of a URL or path: validating the result (its
#: ``hostname`` in an allow-list) validates the variable it came from.
_DERIVING = ("*urlparse", "*urlsplit", "*.hostname", "*.netloc", "*.scheme")

#: Literal containers up to this size are tracked per key; a bigger one (a data table) is
#: one value, so analysis stays linear in the size of the file.
MAX_KEYS = 64

#: A module name a constant import may name.
_MODULE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")

#: Marks the constant description of a configured object (see ``CONFIGURED_CALLS``).
_CONFIGURED = "<configured> "

_FOLD: dict[str, Any] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge, "is": operator.is_, "is not": operator.is_not,
    "in": lambda a, b: a in b, "not in": lambda a, b: a not in b,
}


@dataclass(frozen=True)
class Summary:
    """What a function does with its parameters: which reach its result (``returns`` traces
    with ``param:N`` origins, plus sources read inside) and which reach a sink (``hits``)."""

    returns: Taint
    hits: tuple[Hit, ...]
    params: tuple[str, ...]
    fields: tuple[tuple[str, Taint], ...] = ()  # what it stores into self.<field>
    constructor: bool = False  # the summary of Class(...): its result is the fields


class Resolver(Protocol):
    """Finds the summary of a called function of the same module or a changed module."""

    def resolve(self, run: Evaluator, call: ir.Call) -> tuple[Summary, bool] | None:
        """(summary, the receiver is the first parameter) or None for an unknown callee."""


class Evaluator:
    """Evaluates expressions in ``state``; records the sinks they reach in ``hits``."""

    def __init__(self, path: str, cat: Catalogue, imports: dict[str, str],
                 resolver: Resolver, class_bases: tuple[str, ...] = ()) -> None:
        self.path = path
        self.cat = cat
        self.imports = imports
        self.resolver = resolver
        self.class_bases = class_bases
        self.state: State = State()
        self.globals: State | None = None
        self.aliases: dict[str, str] = {}
        self.owner: str | None = None  # the class whose method this is
        self.hits: list[Hit] = []
        self.fields: dict[str, Taint] = {}  # taint stored into self.<field>
        self.built: dict[str, Taint] | None = None  # the fields of the last Class(...) call
        # The call whose response-body findings are held (``resp = make_response(x)``): they
        # are the response's, reported when it leaves the function (see :meth:`release`).
        self.hold_at: ir.Call | None = None
        self.held: list[tuple[Hit, SinkSpec]] = []

    # -- names --------------------------------------------------------------------------
    def dotted(self, node: ir.Expr) -> str | None:
        """The import-resolved dotted name of ``node`` (``cursor.execute``, ``os.system``)."""
        if isinstance(node, ir.Name):
            return self.aliases.get(node.id) or self.imports.get(node.id, node.id)
        # A computed base ("(a / b).read_bytes") is "?": method sinks still match "*.name".
        if isinstance(node, ir.Attr):
            return f"{self.dotted(node.obj) or '?'}.{node.name}"
        if isinstance(node, ir.Call):
            return self._folded(node) or f"{self.dotted(node.func) or '?'}()"
        if isinstance(node, ir.Sub):
            key = node.key.value if isinstance(node.key, ir.Const) else "*"
            return f"{self.dotted(node.obj) or '?'}[{key}]"
        return None

    def _folded(self, call: ir.Call) -> str | None:
        """The name a constant import or attribute look-up stands for: ``__import__('os')``
        is ``os``, ``importlib.import_module('pickle')`` is ``pickle``, ``getattr(os,
        'sys' + 'tem')`` is ``os.system`` (a disguise reaches the plain name's sinks and
        sources); None for any other call."""
        callee = self.dotted(call.func) or ""
        if any_match(IMPORT_CALLS, callee) and call.args:
            module = self.const(call.args[0])
            if isinstance(module, str) and _MODULE.fullmatch(module):
                # __import__("a.b") returns the package a; import_module returns a.b
                return module if callee.endswith("import_module") else module.split(".")[0]
        elif any_match(GETATTR_CALLS, callee) and len(call.args) >= 2:
            attr = self.const(call.args[1])
            if isinstance(attr, str) and attr.isidentifier():
                return f"{self.dotted(call.args[0]) or '?'}.{attr}"
        return None

    def _source(self, name: str | None, line: int) -> Taint:
        if name is None:
            return CLEAN
        kind = self.cat.sources_for(name, self.class_bases)
        if kind is None:
            return CLEAN
        return (Trace(kind, (Step(self.path, line, "source", f"{name} ({kind} input)"),)),)

    def _chain_source(self, node: ir.Expr) -> Taint:
        # request.GET["id"]: a source anywhere along the attribute chain, even when the
        # chain's root is a local variable (a Django view's ``request`` parameter).
        while isinstance(node, ir.Attr | ir.Sub):
            if isinstance(node, ir.Attr):
                found = self._source(self.dotted(node), node.line)
                if found:
                    return found
            node = node.obj
        return CLEAN

    # -- values -------------------------------------------------------------------------
    def eval(self, node: ir.Expr) -> Taint:
        """The taint ``node`` evaluates to (evaluating calls records the sinks they reach)."""
        if isinstance(node, ir.Const):
            return CLEAN
        if isinstance(node, ir.Name):
            if self.state.has(node.id):
                return self.state.read(node.id)
            if self.globals is not None and self.globals.has(node.id):
                return self.globals.read(node.id)
            return self._source(self.dotted(node), node.line)
        if isinstance(node, ir.Attr | ir.Sub):
            found = self._chain_source(node)
            if found:
                return found
            where = access_path(node, self.state)
            if where is not None and (self.state.has(where[0]) or (
                    self.globals is not None and self.globals.has(where[0]))):
                holder = self.state if self.state.has(where[0]) else self.globals
                assert holder is not None
                taint = holder.read(*where)
                if isinstance(node, ir.Sub) and node.key is not None:
                    self.eval(node.key)
                return taint
            base = self.eval(node.obj)
            if isinstance(node, ir.Sub) and node.key is not None:
                self.eval(node.key)  # a call in the key may reach a sink
            # A slice cuts any part out of the value: where its input sat is lost.
            return reshape(base) if isinstance(node, ir.Sub) and node.key is None else base
        if isinstance(node, ir.Call):
            return self.call(node)
        if isinstance(node, ir.Op):
            return self._op(node)
        if isinstance(node, ir.Seq):
            return union(*(self.eval(e) for e in node.elts))
        if isinstance(node, ir.Dict):
            return union(*(self.eval(v) for _, v in node.items),
                         *(self.eval(k) for k, _ in node.items if k is not None))
        if isinstance(node, ir.BoolOp):
            return union(*(self.eval(v) for v in node.values))
        if isinstance(node, ir.Compare | ir.Not):
            for part in (node.left, *node.rights) if isinstance(node, ir.Compare) else (
                    node.operand,):
                self.eval(part)
            return CLEAN
        if isinstance(node, ir.IfExp):
            return self._ifexp(node)
        if isinstance(node, ir.Walrus):
            taint = self.eval(node.value)
            self.state.write(node.target, "", taint)
            return taint
        if isinstance(node, ir.Comp):
            return self._comprehension(node)
        if isinstance(node, ir.Opaque):
            return reshape(union(*(self.eval(c) for c in node.children)))
        return CLEAN

    def _op(self, node: ir.Op) -> Taint:
        """String building and arithmetic: every operand's input, with the shapes (see
        :mod:`.values`) the operation keeps. Operands after a constant ``?`` or ``#`` are in
        a URL's query or fragment; a URL path segment stays the last component when only
        ``/``-free constants follow it (``f"{name}.html"``) or it is the last operand of a
        path ``/`` (``Path(base) / name``)."""
        parts = [self.eval(o) for o in node.operands]
        both, url = frozenset({"query", "segment"}), frozenset({"query"})
        if node.kind == "/":
            return union(*(reshape(p) for p in parts[:-1]),
                         reshape(parts[-1], frozenset({"segment"})))
        if node.kind == "%" and len(parts) == 2:
            # "/login?next=%s" % x: x is in the query when no conversion precedes the "?";
            # "/srv/%s.html" % name: a segment when no "/" follows the first conversion.
            fmt = self._text(node.operands[0])
            text = fmt if isinstance(fmt, str) else ""
            first = text.find("%") if "%" in text else len(text)
            mark = min((text.find(c) for c in "?#" if c in text), default=-1)
            values = reshape(parts[1], both if isinstance(fmt, str) and "/" not in text[first:]
                             else url)
            if 0 <= mark < first and values:
                values = shaped(values, "query")
            return union(reshape(parts[0], url), values)
        if node.kind not in ("+", "fstring"):
            return reshape(union(*parts))
        out: list[Taint] = []
        query = False
        for i, (operand, taint) in enumerate(zip(node.operands, parts, strict=True)):
            last = all(self._slash_free(o) for o in node.operands[i + 1:])
            kept = reshape(taint, both if last else url)
            out.append(shaped(kept, "query") if query and kept else kept)
            query = query or self.has_query(operand)
        return union(*out)

    def _text(self, node: ir.Expr) -> object:
        """The constant text of an operand (:data:`UNKNOWN` when it is not a constant)."""
        value = self.const(node)
        return value if isinstance(value, str) else UNKNOWN

    def _slash_free(self, node: ir.Expr) -> bool:
        """True when ``node`` is constant text without a "/"."""
        text = self._text(node)
        return isinstance(text, str) and "/" not in text

    def has_query(self, node: ir.Expr) -> bool:
        """True when the value of ``node`` surely holds a constant ``?`` or ``#`` (what follows
        it in a URL is the query or the fragment), on every path: a constant, text built with
        one, or a variable assigned such text."""
        text = self._text(node)
        if isinstance(text, str):
            return "?" in text or "#" in text
        if isinstance(node, ir.Name):
            return node.id in self.state.queried or (
                not self.state.has(node.id) and self.globals is not None
                and node.id in self.globals.queried)
        if isinstance(node, ir.IfExp):
            return self.has_query(node.body) and self.has_query(node.orelse)
        return isinstance(node, ir.Op) and node.kind in ("+", "fstring") and any(
            self.has_query(o) for o in node.operands)

    def const(self, node: ir.Expr) -> object:
        """The constant value of ``node``, or :data:`UNKNOWN`."""
        if isinstance(node, ir.Const):
            return node.value
        if isinstance(node, ir.Name):
            value = self.state.const(node.id)
            if value is UNKNOWN and not self.state.has(node.id) and self.globals is not None:
                value = self.globals.const(node.id)
            return value
        if isinstance(node, ir.Not):
            value = self.const(node.operand)
            return UNKNOWN if value is UNKNOWN else not value
        if isinstance(node, ir.BoolOp):
            values = [self.const(v) for v in node.values]
            if node.op == "and":
                if any(v is not UNKNOWN and not v for v in values):
                    return False
                return values[-1] if all(v is not UNKNOWN for v in values) else UNKNOWN
            if any(v is not UNKNOWN and v for v in values):
                return True
            return values[-1] if all(v is not UNKNOWN for v in values) else UNKNOWN
        if isinstance(node, ir.Compare) and len(node.ops) == 1 and node.ops[0] in _FOLD:
            left, right = self.const(node.left), self.const(node.rights[0])
            if left is UNKNOWN or right is UNKNOWN:
                return UNKNOWN
            try:
                return bool(_FOLD[node.ops[0]](left, right))
            except TypeError:
                return UNKNOWN
        if isinstance(node, ir.Seq) and node.kind == "tuple":
            items = tuple(self.const(e) for e in node.elts)
            return UNKNOWN if any(v is UNKNOWN for v in items) else items
        if isinstance(node, ir.Op) and node.kind == "+":
            # 'o' + 's' is "os": a name built from pieces is still a constant name.
            parts = [self.const(o) for o in node.operands]
            if all(isinstance(p, str) for p in parts):
                return "".join(str(p) for p in parts)
        return UNKNOWN

    def _ifexp(self, node: ir.IfExp) -> Taint:
        test = self.const(node.test)
        if test is not UNKNOWN:
            return self.eval(node.body if test else node.orelse)
        self.eval(node.test)
        saved = self.state
        self.state = saved.copy()
        self.refine(node.test, True)
        body = self.eval(node.body)
        self.state = saved.copy()
        self.refine(node.test, False)
        orelse = self.eval(node.orelse)
        self.state = saved
        return union(body, orelse)

    def _comprehension(self, node: ir.Comp) -> Taint:
        saved = self.state
        self.state = saved.copy()
        for target, iterable, conds in node.gens:
            self.bind(target, self.eval(iterable), None, node.line)
            for cond in conds:
                self.eval(cond)
                self.refine(cond, True)
        taint = union(*(self.eval(e) for e in node.elts))
        self.state = saved
        return taint

    # -- calls --------------------------------------------------------------------------
    def call(self, node: ir.Call) -> Taint:
        """The result of a call: a source, a sanitizer, a summarised function, or by default
        everything its receiver and arguments carry."""
        name = self.dotted(node.func)
        args = [self.eval(a) for a in node.args]
        kwargs = [(k, self.eval(v)) for k, v in node.kwargs]
        receiver = node.func.obj if isinstance(node.func, ir.Attr) else None
        recv = self.eval(receiver) if receiver is not None else CLEAN
        if not isinstance(node.func, ir.Name | ir.Attr):
            recv = self.eval(node.func)  # make_scorer(expr)(x): the callee is computed
        if isinstance(receiver, ir.Name) and isinstance(node.func, ir.Attr):
            setting = self.state.const(receiver.id)
            if isinstance(setting, str) and setting.startswith(_CONFIGURED):
                self.state.consts[receiver.id] = (
                    f"{setting}.{node.func.name}({self._arguments(node)})")
        if name is not None:
            command = self._shell_command(name, node)
            if command is None:
                self._sinks(name, node, args, kwargs, recv)
            else:  # run(["sh", "-c", cmd]) is run(cmd, shell=True)
                shelled = ir.Call(node.line, node.func, (command, *node.args[1:]),
                                  (*node.kwargs, ("shell", ir.Const(node.line, True))))
                self._sinks(name, shelled, [self.eval(command), *args[1:]],
                            [*kwargs, ("shell", CLEAN)], recv)
        found = self._source(name, node.line)
        if found:
            return found
        resolved = self.resolver.resolve(self, node)
        if resolved is not None:
            return self._apply(resolved[0], resolved[1], node, recv, args, kwargs)
        if name is not None and any_match(SHAPE_KEEPING, name):
            return union(recv, *args, *(t for _, t in kwargs))
        if name is not None and any_match(PATH_JOINS, name) and (args or recv):
            # os.path.join(base, name), Path(base, name), base.joinpath(name): the input of
            # the last component stays a segment, any other part's does not.
            last = args[-1] if args else recv
            return union(*(reshape(t) for t in ([recv, *args[:-1]] if args else [])),
                         reshape(last, frozenset({"segment"})),
                         *(reshape(t) for _, t in kwargs))
        # Any other call may move its input anywhere in its result: shapes are lost.
        recv, args = reshape(recv), [reshape(t) for t in args]
        kwargs = [(k, reshape(t)) for k, t in kwargs]
        inputs = union(recv, *args, *(t for _, t in kwargs))
        if name is None:
            return inputs
        if any_match(CLEAN_CALLS, name):
            return CLEAN
        sanitizer = self.cat.sanitizer(name)
        if sanitizer is not None:
            return clear(inputs, sanitizer)
        if any_match(RESPONSE_CALLS, name):
            return clear(inputs, RESPONSE)  # now inside a response (or judged as HTML)
        method = node.func.name if isinstance(node.func, ir.Attr) else ""
        where = access_path(receiver, self.state) if receiver is not None else None
        if method in LOOKUPS and receiver is not None:
            return self._lookup(node, where, recv, args, kwargs)
        if method in MUTATORS and where is not None:
            self.state.add_item(*where, union(*args, *(t for _, t in kwargs)))
            return CLEAN
        propagator = self.cat.propagator(name)
        if propagator is not None:
            moved = union(*(recv if i == -1 else args[i] if i < len(args) else CLEAN
                            for i in propagator.frm))
            if propagator.to == "receiver" and where is not None:
                self.state.weak(*where, moved)
                return CLEAN
            return moved
        return inputs

    def _lookup(self, node: ir.Call, where: tuple[str, str] | None, recv: Taint,
                args: list[Taint], kwargs: list[tuple[str | None, Taint]]) -> Taint:
        """``d.get(k, default)``, ``d.pop(k)``, ``d.setdefault(k, v)``: what the container
        holds, and the default. The key reaches the result only when the container holds
        input of its own (``request.args.get(name)``): a key chosen by the input selects a
        stored object from a store the input did not build (see ``LOOKUPS``)."""
        assert isinstance(node.func, ir.Attr)
        if node.func.name in MUTATORS and where is not None:  # setdefault stores k and v
            self.state.add_item(*where, union(*args))
        key = node.args[0] if node.args else None
        if where is not None and isinstance(key, ir.Const):
            tracked = f"{where[1]}[{key.value!r}]"
            if tracked in self.state.vars.get(where[0], {}):
                # d.get("k") of a dict whose "k" is tracked: that key only (and the default).
                return union(self.state.read(where[0], tracked), *args[1:])
        if any(not trace.origin.startswith("param:") for trace in recv):
            return union(recv, *args, *(t for _, t in kwargs))
        # A container with no input of its own (clean, or a parameter: its caller's
        # container decides through the summary): the key only selects a stored object.
        return union(recv, *args[1:])

    def _shell_command(self, name: str, node: ir.Call) -> ir.Expr | None:
        """The command line of a shell started through an argument vector (``cmd`` of
        ``subprocess.run(["sh", "-c", cmd])``, ``["cmd", "/c", cmd]``), or None."""
        if not any_match(ARGV_CALLS, name) or not node.args:
            return None
        argv = node.args[0]
        if not isinstance(argv, ir.Seq) or len(argv.elts) < 3:
            return None
        program, flag = self.const(argv.elts[0]), self.const(argv.elts[1])
        if isinstance(program, str) and any_match(SHELLS, program) and flag in SHELL_FLAGS:
            return argv.elts[2]
        return None

    def _apply(self, summary: Summary, method: bool, node: ir.Call, recv: Taint,
               args: list[Taint], kwargs: list[tuple[str | None, Taint]]) -> Taint:
        bound: dict[int, Taint] = {}
        positional = [recv, *args] if method else list(args)
        params = summary.params
        for i, taint in enumerate(positional):
            if i < len(params) and not params[i].startswith("*"):
                bound[i] = taint
            elif params and any(p.startswith("*") and not p.startswith("**") for p in params):
                star = next(j for j, p in enumerate(params) if p.startswith("*"))
                bound[star] = union(bound.get(star, CLEAN), taint)
        for key, taint in kwargs:
            if key in params:
                bound[params.index(key)] = taint
            elif any(p.startswith("**") for p in params):
                star = next(j for j, p in enumerate(params) if p.startswith("**"))
                bound[star] = union(bound.get(star, CLEAN), taint)
        step = Step(self.path, node.line, "call", f"call to {self.dotted(node.func)}()")
        if summary.constructor:
            self.built = {}
            for path, taint in summary.fields:
                moved = union(*(_splice(bound.get(int(t.origin[6:]), CLEAN), step, t)
                                if t.origin.startswith("param:") else (t,) for t in taint))
                self.built[path] = union(self.built.get(path, CLEAN), moved)
            return union(*self.built.values())
        out: list[Taint] = []
        for trace in summary.returns:
            if trace.origin.startswith("param:"):
                out.append(_splice(bound.get(int(trace.origin[6:]), CLEAN), step, trace))
            else:
                out.append((Trace(trace.origin, (*trace.steps, step), trace.cleared),))
        for hit in summary.hits:
            for flow in _splice(bound.get(int(hit.trace.origin[6:]), CLEAN), step, hit.trace):
                spec = next((s for s in self.cat.specs if s.rule_id == hit.rule), None)
                if spec is not None:
                    self._hit(spec, flow, hit.sink_line, hit.sink_path, hit.note,
                              hit.harmless)
        return union(*out)

    def _sinks(self, name: str, node: ir.Call, args: list[Taint],
               kwargs: list[tuple[str | None, Taint]], recv: Taint) -> None:
        for spec, sink in self.cat.sinks_for(name, store=False):
            if not all(self._holds(c, node) for c in sink.when) or any(
                    self._holds(c, node) for c in sink.unless):
                continue
            dangerous: list[Taint] = [recv] if -1 in sink.args else []
            for i, taint in enumerate(args):
                if sink.dangerous(i, None):
                    dangerous.append(self._element(node.args[i], sink) if sink.element
                                     is not None else taint)
            for key, taint in kwargs:
                if key is not None and sink.dangerous(None, key):
                    dangerous.append(taint)
            hold = node is self.hold_at and spec.view_return
            for trace in union(*dangerous):
                hit = self._hit(spec, trace, node.line, self.path, sink.message or name,
                                sink.harmless, record=not hold)
                if hit is not None and hold:
                    self.held.append((hit, sink))

    def _element(self, node: ir.Expr, sink: SinkSpec) -> Taint:
        if isinstance(node, ir.Seq):
            index = sink.element or 0
            return self.eval(node.elts[index]) if index < len(node.elts) else CLEAN
        where = access_path(node, self.state)
        if where is not None and self.state.has(where[0]):
            key = f"{where[1]}[{sink.element!r}]"
            paths = self.state.vars.get(where[0], {})
            if key in paths:
                return paths[key]
        return self.eval(node)

    def _holds(self, cond: Condition, node: ir.Call) -> bool:
        arg: ir.Expr | None = next((v for k, v in node.kwargs if k == cond.kw), None)
        if cond.kw == "receiver" and isinstance(node.func, ir.Attr):
            arg = node.func.obj
        if arg is None and cond.pos is not None and cond.pos < len(node.args):
            arg = node.args[cond.pos]
        if arg is None:
            return False
        if cond.header is not None:
            arg = _header(arg, cond.header)
            if arg is None:
                return False
        return self.satisfies(cond, arg)

    def satisfies(self, cond: Condition, arg: ir.Expr) -> bool:
        """True when the value ``arg`` meets ``cond`` (its header already looked up)."""
        value = self.const(arg)
        name = self.dotted(arg)
        made = self._made(arg)
        for wanted in cond.values:
            if value is not UNKNOWN and value == wanted and type(value) is type(wanted):
                return True
            if isinstance(value, str) and isinstance(wanted, str) and "*" in wanted and \
                    glob_match(wanted, value):
                return True
            if isinstance(wanted, str) and name is not None and glob_match(wanted, name):
                return True
            if isinstance(wanted, str) and made is not None and glob_match(wanted, made):
                return True
        return cond.computed and value is UNKNOWN and not self._reads_input(arg)

    def _reads_input(self, node: ir.Expr) -> bool:
        """True when ``node`` itself reads request data (``request.args["type"]``)."""
        if isinstance(node, ir.Name | ir.Attr | ir.Sub | ir.Call) and (
                self._chain_source(node) or self._source(self.dotted(node), node.line)):
            return True
        return any(self._reads_input(child) for child in _parts(node))

    def _made(self, arg: ir.Expr) -> str | None:
        """``io.BytesIO()`` for a variable last assigned ``io.BytesIO(...)`` (or bound by
        ``with open(...) as fh``): the call that made its value, named as :meth:`dotted`
        names a call, so a condition globs one form for ``f(io.BytesIO(b))`` and
        ``buf = io.BytesIO(b); f(buf)``."""
        if not isinstance(arg, ir.Name) or arg.id not in self.state.types:
            return None
        kind = self.state.types[arg.id]
        return f"{kind if '.' in kind else self.imports.get(kind, kind)}()"

    def store_sink(self, target: ir.Expr, taint: Taint, line: int) -> None:
        """A store into a sink target (``resp.headers['Location'] = v``, ``session[k] = v``)."""
        name = self.dotted(target)
        if name is None or not taint:
            return
        for spec, sink in self.cat.sinks_for(name, store=True):
            for trace in taint:
                self._hit(spec, trace, line, self.path, sink.message or name, sink.harmless)

    def _hit(self, spec: TaintSpec, trace: Trace, line: int, path: str, note: str,
             harmless: frozenset[str] = frozenset(), record: bool = True) -> Hit | None:
        """The finding of ``trace`` at a sink of ``spec`` (recorded unless ``record`` is
        false), or None when the trace is sanitized, not of a reported source kind, already
        inside a response, or only in a shape the sink declares ``harmless``."""
        if any(s in trace.cleared for s in spec.sanitizers):
            return None
        if spec.view_return and RESPONSE in trace.cleared:
            return None  # already inside a response: its finding is where it entered it
        param = trace.origin.startswith("param:")
        if not param and trace.origin not in spec.source_kinds:
            return None
        shapes = set() if param else shape_of(trace) & harmless
        if "query" in shapes:
            return None  # only in the query of a URL whose scheme, host and path are fixed
        contained = "segment" if "segment" in shapes else None
        if contained is not None:
            # A URL segment holds no "/": it stays in the directory on POSIX, not on Windows
            # where a backslash is a separator too (so reported, below the gate).
            note = f"{note}, as its last component only (no '/': contained on POSIX)"
            if trace.steps and trace.steps[-1].kind == "sink":  # a callee's sink
                last = trace.steps[-1]
                trace = Trace(trace.origin, (*trace.steps[:-1], Step(
                    last.path, last.line, last.kind, note)), trace.cleared)
        flow = trace if path != self.path or (trace.steps and trace.steps[-1].kind == "sink") \
            else trace.then(Step(path, line, "sink", note))
        hit = Hit(spec.rule_id, flow, line, path, note, harmless if param else frozenset(),
                  contained)
        if record:
            self.hits.append(hit)
        return hit

    # -- responses held until they leave the function ----------------------------------------
    def hold(self, root: str) -> None:
        """Keep the findings held at the last call as the response object ``root``'s."""
        if self.held:
            self.state.pending[root] = tuple(self.held)
        self.held = []

    def release(self, state: State | None, root: str | None = None) -> None:
        """Report the held findings of ``root`` (of every response when None): the response
        leaves the function, or the variable is given another value."""
        if state is None:
            return
        for name in [root] if root is not None else list(state.pending):
            for hit, _ in state.pending.pop(name, ()):
                self.hits.append(hit)

    def typed(self, target: ir.Expr, value: ir.Expr) -> None:
        """``resp.mimetype = v`` / ``resp.headers["Content-Type"] = v`` on a held response:
        the findings whose sink an ``unless`` condition on that setting makes safe are
        dropped (the body is not served as HTML)."""
        setting = _setting(target)
        if setting is None or setting[0] not in self.state.pending:
            return
        root, kw, header = setting
        held: Pending = self.state.pending[root]
        kept = tuple((hit, sink) for hit, sink in held if not any(
            (c.header.lower() == header if c.header and header else (
                not c.header and not header and c.kw == kw)) and self.satisfies(c, value)
            for c in sink.unless))
        self.state.pending[root] = kept

    # -- binding and conditions -----------------------------------------------------------
    def bind(self, target: ir.Expr, taint: Taint, value: ir.Expr | None, line: int) -> None:
        """Assign ``taint`` (of expression ``value`` when known) to ``target``."""
        if isinstance(target, ir.Seq):
            for i, elt in enumerate(target.elts):
                part = value.elts[i] if isinstance(value, ir.Seq) and i < len(
                    value.elts) else None
                part_taint = self.eval(part) if part is not None else self._index(value, i,
                                                                                  taint)
                self.bind(elt, part_taint, part, line)
            return
        taint = extend(taint, Step(self.path, line, "step"))
        where = access_path(target, self.state)
        self.store_sink(target, taint, line)
        if where is None:
            if isinstance(target, ir.Sub):  # x[expr] = v: an unknown key of x
                base = access_path(target.obj, self.state)
                if base is not None:
                    self.state.add_item(*base, taint)
                if target.key is not None:
                    self.eval(target.key)
            return
        root, path = where
        query = not path and value is not None and self.has_query(value)
        if not path:
            self.release(self.state, root)
        self.state.write(root, path, taint)
        if query:
            self.state.queried.add(root)
        if not path:
            self._alias(root, value)
        built, self.built = self.built, None
        if built is not None and not path and isinstance(value, ir.Call):
            self.state.write(root, "", CLEAN)  # the object is its fields
            for field, field_taint in built.items():
                self.state.write(root, field, extend(field_taint, Step(self.path, line, "step")))
        if root == "self" and path:
            self.fields[path] = union(self.fields.get(path, CLEAN), taint)
        items = (value.items if isinstance(value, ir.Dict) else
                 value.elts if isinstance(value, ir.Seq) else None)
        if items is not None and len(items) <= MAX_KEYS:
            # A literal container: each constant key is tracked on its own (the write above
            # cleared everything under the path, so plain stores are enough).
            paths = self.state.vars[root]
            step = Step(self.path, line, "step")
            others: list[Taint] = []
            for i, item in enumerate(items):
                key, elt = item if isinstance(item, tuple) else (ir.Const(line, i), item)
                if isinstance(key, ir.Const):
                    paths[f"{path}[{key.value!r}]"] = extend(self.eval(elt), step)
                else:
                    others.append(self.eval(elt))
            paths[path] = union(*others)
        elif isinstance(value, ir.Name) and value.id in self.state.vars and not path:
            for key, sub in self.state.vars[value.id].items():
                self.state.vars[root][key] = extend(sub, Step(self.path, line, "step"))
        elif not path:
            if isinstance(value, ir.Call) and isinstance(value.func, ir.Name | ir.Sub):
                func = value.func.obj if isinstance(value.func, ir.Sub) else value.func
                if isinstance(func, ir.Name):  # x = Backup(...): x is a Backup
                    self.state.types[root] = func.id
            elif isinstance(value, ir.Call) and isinstance(value.func, ir.Attr):
                made = self.dotted(value.func)  # x = io.BytesIO(...): x is an io.BytesIO
                if made is not None and not made.startswith("?") and "(" not in made:
                    self.state.types[root] = made
            const = self.const(value) if value is not None else UNKNOWN
            if const is not UNKNOWN:
                self.state.set_const(root, const)
            elif isinstance(value, ir.Call) and any_match(CONFIGURED_CALLS,
                                                          self.dotted(value.func) or ""):
                self.state.consts[root] = self._configured(value)
            elif value is not None and isinstance(value, ir.Call | ir.Attr) and any_match(
                    _DERIVING, self.dotted(value) or ""):
                origin = _single_root(value)
                if origin is not None:
                    self.state.derived[root] = origin

    def _alias(self, root: str, value: ir.Expr | None) -> None:
        """Remember that ``root`` now names a sink or a module (``ev = eval``, ``run =
        getattr(os, 'system')``, ``m = __import__('pickle')``): calls through it are calls of
        that name. Any other value ends an earlier alias of ``root``."""
        self.aliases.pop(root, None)
        if isinstance(value, ir.Name) and (self.state.has(value.id) or (
                self.globals is not None and self.globals.has(value.id))):
            return  # a variable's value, not a name
        if not isinstance(value, ir.Name | ir.Attr | ir.Call):
            return
        name = self.dotted(value)
        if name is None or name.startswith("?") or name.endswith("()"):
            return
        module = isinstance(value, ir.Call) and any_match(
            IMPORT_CALLS, self.dotted(value.func) or "")
        if module or self.cat.sinks_for(name, store=False):
            self.aliases[root] = name

    def _configured(self, call: ir.Call) -> str:
        """``XMLParser(resolve_entities=True)`` as a description a condition can glob;
        later method calls on the object (``setFeature(feature_external_ges, True)``) are
        appended to it."""
        return f"{_CONFIGURED}{self.dotted(call.func)}({self._arguments(call)})"

    def _arguments(self, call: ir.Call) -> str:
        def show(value: ir.Expr) -> str:
            const = self.const(value)
            return repr(const) if const is not UNKNOWN else self.dotted(value) or "?"
        return ",".join([*(show(a) for a in call.args),
                         *(f"{k}={show(v)}" for k, v in call.kwargs if k)])

    def refine(self, test: ir.Expr, truth: bool) -> None:
        """Narrow the state to the paths where ``test`` is ``truth`` (see :mod:`.guards`)."""
        guards.refine(self, test, truth)

    def _index(self, value: ir.Expr | None, i: int, taint: Taint) -> Taint:
        where = access_path(value, self.state) if value is not None else None
        if where is not None and self.state.has(where[0]):
            return self.state.read(where[0], f"{where[1]}[{i!r}]")
        return taint

def _splice(prefix: Taint, step: Step, trace: Trace) -> Taint:
    """The caller's traces ``prefix`` through a function's parameter trace ``trace``: with
    both sanitizers, and the shapes the function kept or gave (:func:`splice_shapes`)."""
    return tuple(Trace(p.origin, (*p.steps, step, *trace.steps),
                       splice_shapes(p.cleared, trace.cleared)) for p in prefix)


def _single_root(node: ir.Expr) -> str | None:
    roots: set[str] = set()

    def walk(e: ir.Expr) -> None:
        if isinstance(e, ir.Name):
            roots.add(e.id)
        elif isinstance(e, ir.Attr):
            walk(e.obj)
        elif isinstance(e, ir.Call):
            if isinstance(e.func, ir.Attr):
                walk(e.func.obj)
            for a in e.args:
                walk(a)
    walk(node)
    return roots.pop() if len(roots) == 1 else None


def _header(arg: ir.Expr, header: str) -> ir.Expr | None:
    """The value of ``header`` in a headers literal: ``{"Content-Type": v}`` or
    ``[("Content-Type", v)]`` (the name compared case-insensitively)."""
    wanted = header.lower()
    if isinstance(arg, ir.Dict):
        pairs = [(k, v) for k, v in arg.items if k is not None]
    elif isinstance(arg, ir.Seq):
        pairs = [(e.elts[0], e.elts[1]) for e in arg.elts
                 if isinstance(e, ir.Seq) and len(e.elts) == 2]
    else:
        return None
    return next((v for k, v in pairs if isinstance(k, ir.Const) and isinstance(k.value, str)
                 and k.value.lower() == wanted), None)


def _setting(target: ir.Expr) -> tuple[str, str, str] | None:
    """``(root, keyword, header)`` of a store that sets a response's content type:
    ``resp.mimetype`` is ``(resp, "mimetype", "")``; ``resp.headers["Content-Type"]`` and
    Django's ``resp["Content-Type"]`` are ``(resp, "", "content-type")``."""
    if isinstance(target, ir.Attr) and isinstance(target.obj, ir.Name) and \
            target.name in TYPE_ATTRS:
        return target.obj.id, target.name, ""
    if isinstance(target, ir.Sub) and isinstance(target.key, ir.Const) and isinstance(
            target.key.value, str):
        holder = target.obj
        if isinstance(holder, ir.Attr) and holder.name == "headers":
            holder = holder.obj
        if isinstance(holder, ir.Name):
            return holder.id, "", target.key.value.lower()
    return None


def _parts(node: ir.Expr) -> tuple[ir.Expr, ...]:
    """The sub-expressions of ``node``."""
    if isinstance(node, ir.Attr):
        return (node.obj,)
    if isinstance(node, ir.Sub):
        return (node.obj,) if node.key is None else (node.obj, node.key)
    if isinstance(node, ir.Call):
        return (node.func, *node.args, *(v for _, v in node.kwargs))
    if isinstance(node, ir.Op):
        return node.operands
    if isinstance(node, ir.Seq):
        return node.elts
    if isinstance(node, ir.Dict):
        return tuple(x for k, v in node.items for x in ((v,) if k is None else (k, v)))
    if isinstance(node, ir.BoolOp):
        return node.values
    if isinstance(node, ir.IfExp):
        return (node.test, node.body, node.orelse)
    if isinstance(node, ir.Compare):
        return (node.left, *node.rights)
    if isinstance(node, ir.Not):
        return (node.operand,)
    if isinstance(node, ir.Walrus):
        return (node.value,)
    if isinstance(node, ir.Opaque):
        return node.children
    return ()
