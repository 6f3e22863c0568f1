"""The modules of one analysis (a file and the pull request's other changed modules): their
functions, classes and imports, and the function summaries calls are resolved to.

Every function is run once: its parameters carry ``param:N`` labels, so the same run yields
the flows from sources inside it (findings) and what it does with its parameters (its
summary, applied at each call site). A recursive call in progress falls back to the default
(its arguments reach its result).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from . import ir
from .catalogue import (
    GRAPHENE_BASES,
    HANDLER_BASES,
    HANDLER_METHODS,
    HTML_RESPONSE_CLASSES,
    JSON_ROUTE_MODULES,
    REQUEST_TYPES,
    RESOLVER_CONTEXT,
    RESOLVER_DECORATORS,
    ROUTE_DECORATORS,
    SAFE_ANNOTATIONS,
    SAFE_CONVERTERS,
    SEGMENT_CONVERTERS,
    TEST_DECORATORS,
    VIEW_BASES,
    VIEW_METHODS,
    any_match,
)
from .exprs import Evaluator, Summary
from .flow import FunctionRun
from .spec import Catalogue
from .state import State
from .values import PARAM_MARKS, SEGMENT, Hit, Step, Trace

_CONVERTER = re.compile(r"<(\w+)(?:\([^)]*\))?:(\w+)>")
#: A route's fields: Flask ``<name>``/``<conv:name>``/``<conv(args):name>``, Starlette and
#: FastAPI ``{name}``/``{name:conv}`` (converter, name).
_FLASK_FIELD = re.compile(r"<(?:(\w+)(?:\([^)]*\))?:)?(\w+)>")
_BRACE_FIELD = re.compile(r"\{(\w+)(?::(\w+))?\}")


@dataclass
class ClassInfo:
    name: str
    bases: tuple[str, ...]
    methods: dict[str, ir.FuncDef]
    fields: dict[str, tuple[Trace, ...]] = field(default_factory=dict)


@dataclass
class ModuleInfo:
    """One parsed module and what the analysis knows about its names."""

    path: str
    module: ir.Module
    imports: dict[str, str]
    functions: dict[str, ir.FuncDef]
    classes: dict[str, ClassInfo]
    owners: dict[int, ClassInfo | None]  # id(FuncDef) -> its class
    defs: list[ir.FuncDef]
    globals: State | None = None


def module_name(path: str) -> str:
    """``pkg/mod.py`` -> ``pkg.mod`` (``__init__`` names the package)."""
    name = path[:-3] if path.endswith(".py") else path
    name = name.replace("/", ".")
    return name[: -len(".__init__")] if name.endswith(".__init__") else name


class Project:
    """Resolves calls between the functions of the analysed modules and caches summaries.

    Modules are parsed when first needed (their own turn, or a call from another module
    reaching one of their functions) and released after their turn: what another module's
    calls need of them afterwards is the summaries of their top-level functions. So the
    parsed code held at once is one module and the modules its calls reach, not all of them.
    """

    def __init__(self, cat: Catalogue, modules: Mapping[str, ir.Module] | None = None, *,
                 paths: Iterable[str] = (),
                 load: Callable[[str], ir.Module | None] | None = None) -> None:
        """``modules`` already parsed, or ``paths`` and ``load`` (a path's IR, None when it
        cannot be analysed) to parse each module when the analysis needs it."""
        given = dict(modules or {})
        self.cat = cat
        self._order = [*given, *(p for p in paths if p not in given)]
        self._parse = load or (lambda path: None)
        self._given = given
        self.modules: dict[str, ModuleInfo] = {}  # parsed and not yet released
        self._sealed: dict[str, dict[str, Summary | None]] = {}  # released: top-level summaries
        self._unusable: set[str] = set()  # ``load`` returned None
        self._by_name: dict[str, list[str]] = {}
        for path in self._order:
            self._by_name.setdefault(module_name(path), []).append(path)
        # Dotted tail -> the module names ending with "." + it, in ``_by_name``'s order: a
        # name no module has (an installed package's) is looked up without a walk of every
        # module of the pull request.
        self._by_tail: dict[str, list[str]] = {}
        for name in self._by_name:
            parts = name.split(".")
            for start in range(1, len(parts)):
                self._by_tail.setdefault(".".join(parts[start:]), []).append(name)
        self._summaries: dict[int, Summary | None] = {}
        self._lookups: dict[str, str | None] = {}
        self.hits: list[Hit] = []

    # -- modules --------------------------------------------------------------------------
    def _usable(self, path: str) -> bool:
        return path in self._sealed or self._open(path) is not None

    def _open(self, path: str) -> ModuleInfo | None:
        """The parsed module ``path`` (parsing it now), or None when it cannot be analysed."""
        info = self.modules.get(path)
        if info is not None or path in self._unusable or path in self._sealed:
            return info
        module = self._given.pop(path, None) or self._parse(path)
        if module is None:
            self._unusable.add(path)
            return None
        info = _index(path, module)
        globals_run = FunctionRun(path, self.cat, dict(info.imports), _NoCalls())
        info.globals = globals_run.block(module.body, State()) or State()
        self.modules[path] = info
        return info

    def _module(self, dotted: str) -> str | None:
        if dotted in self._lookups:
            return self._lookups[dotted]
        # The last usable module of that name (two paths can name one module: a.py, a/).
        found = next((p for p in reversed(self._by_name.get(dotted, [])) if self._usable(p)),
                     None)
        if found is None:  # a package root below the repository root (src/, app/)
            usable: list[str] = []
            for name in self._by_tail.get(dotted, ()):
                paths = self._by_name[name]
                path = next((p for p in reversed(paths) if self._usable(p)), None)
                usable.extend([path] if path is not None else [])
                if len(usable) > 1:
                    break  # ambiguous: no need to parse the others
            found = usable[0] if len(usable) == 1 else None
        self._lookups[dotted] = found
        return found

    def _function(self, dotted: str, attr: str) -> Summary | None:
        """The summary of the top-level function ``attr`` of the module ``dotted``."""
        path = self._module(dotted)
        if path is None:
            return None
        sealed = self._sealed.get(path)
        if sealed is not None:
            return sealed.get(attr)
        other = self._open(path)
        if other is None or attr not in other.functions:
            return None
        return self.summary(other, other.functions[attr])

    def resolve(self, run: Evaluator, call: ir.Call) -> tuple[Summary, bool] | None:
        """The summary of the function ``call`` reaches, if it is one of ours."""
        info = self.modules.get(run.path)
        func, method = call.func, False
        target: tuple[ModuleInfo, ir.FuncDef] | None = None
        if isinstance(func, ir.Attr) and isinstance(func.obj, ir.Name) and func.obj.id in (
                "self", "cls") and info is not None:
            owner = info.classes.get(run.owner or "")
            if owner is not None and func.name in owner.methods:
                target, method = (info, owner.methods[func.name]), True
        elif isinstance(func, ir.Name) and info is not None and func.id in info.functions \
                and func.id not in run.imports:
            target = (info, info.functions[func.id])
        elif info is not None and _class_name(func) in info.classes:
            # Backup(x), Loader[T](x): the object carries what __init__ stores in its fields.
            init = info.classes[_class_name(func)].methods.get("__init__")
            built = self.summary(info, init) if init is not None else None
            if built is None:
                return None
            return Summary((), built.hits, built.params, built.fields, constructor=True), True
        elif isinstance(func, ir.Attr) and info is not None:
            # job = Backup(x); job.run() or Backup(x).run(): a method of a class of ours.
            owner = info.classes.get(
                run.state.types.get(func.obj.id, "") if isinstance(func.obj, ir.Name)
                else _class_name(func.obj.func) if isinstance(func.obj, ir.Call) else "")
            if owner is not None and func.name in owner.methods:
                target, method = (info, owner.methods[func.name]), True
        if target is None:
            name = run.dotted(func)
            if name and "." in name and "(" not in name:
                module, _, attr = name.rpartition(".")
                found = self._function(module, attr)
                return (found, False) if found is not None else None
            return None
        summary = self.summary(*target)
        return (summary, method) if summary is not None else None

    # -- analysis -------------------------------------------------------------------------
    def summary(self, info: ModuleInfo, func: ir.FuncDef) -> Summary | None:
        """The summary of ``func`` (None while it is being computed: recursion)."""
        key = id(func)
        if key in self._summaries:
            return self._summaries[key]
        self._summaries[key] = None
        owner = info.owners.get(key)
        run = self._run(info, func, owner)
        params = tuple(("**" if p.kind == "varkw" else "*" if p.kind == "var" else "") + p.name
                       for p in func.params)
        returns = tuple(t for taint in run.returns for t in taint)
        facts = tuple(h for h in run.hits if h.trace.origin.startswith("param:"))
        self.hits.extend(h for h in run.hits if not h.trace.origin.startswith("param:"))
        if owner is not None:
            for path, taint in run.fields.items():
                real = tuple(t for t in taint if not t.origin.startswith("param:"))
                if real:
                    owner.fields[path] = tuple(dict.fromkeys((*owner.fields.get(path, ()),
                                                              *real)))
        fields = tuple((path, tuple(t for t in taint if t.origin != "param:0"))
                       for path, taint in run.fields.items())
        summary = Summary(returns, facts, params, fields)
        self._summaries[key] = summary
        return summary

    def _turn(self, info: ModuleInfo) -> None:
        """Every function, the classes' second pass and the top level of ``info``; then its
        parsed code is released and only its top-level functions' summaries are kept."""
        for func in info.defs:
            self.summary(info, func)
        for owner in info.classes.values():
            if owner.fields:  # a second pass: methods read fields other methods store
                for func in owner.methods.values():
                    run = self._run(info, func, owner)
                    self.hits.extend(h for h in run.hits
                                     if not h.trace.origin.startswith("param:"))
        top = FunctionRun(info.path, self.cat, dict(info.imports), self)
        top.globals = None
        top.release(top.block(info.module.body, State()))
        self.hits.extend(h for h in top.hits if not h.trace.origin.startswith("param:"))
        self._sealed[info.path] = {name: self._summaries.get(id(func))
                                   for name, func in info.functions.items()}
        for func in info.defs:  # an id is reused once its function is freed
            self._summaries.pop(id(func), None)
        del self.modules[info.path]

    def _run(self, info: ModuleInfo, func: ir.FuncDef, owner: ClassInfo | None) -> FunctionRun:
        run = FunctionRun(info.path, self.cat, dict(info.imports), self,
                          owner.bases if owner else ())
        run.globals = info.globals
        run.owner = owner.name if owner else None
        state = State()
        decorators = [run.dotted(_callee(d)) or "" for d in func.decorators]
        # A route decorator makes a view whatever the function is called (a name is the pull
        # request's to choose); mock.patch only looks like one.
        view = any(any_match(ROUTE_DECORATORS, d) and not any_match(TEST_DECORATORS, d)
                   for d in decorators)
        # A test or fixture is not a view, and its ``request`` is pytest's FixtureRequest.
        test = not view and (any(any_match(TEST_DECORATORS, d) for d in decorators) or (
            func.name.startswith("test_") and _is_test_module(info.path)))
        resolver = not test and _is_resolver(func, decorators, owner)
        safe = _converters(func)
        segments = _segments(func, run)
        params = func.params
        request_at = None if test else next((i for i, p in enumerate(params) if (
            p.name == "request" or (p.annotation and any_match(REQUEST_TYPES, p.annotation)))),
            None)
        # What the function returns is the response body only when the framework sends it:
        # a route's, or an HTTP-method handler's of a class-based view. Taking a ``request``
        # does not make one (a DRF filter or permission, an HTTP client's adapter, a helper;
        # a Django function view must return a response object, whose constructor is a sink).
        handler = not test and owner is not None and func.name in VIEW_METHODS and (
            _view_class(owner, info) or (len(params) > 1 and request_at == 1))
        run.view = (view or handler) and not _json_route(func, run, info)
        # Tornado passes the URL's captured groups to the HTTP-method methods.
        view = view or (owner is not None and func.name in HANDLER_METHODS
                        and any(any_match(HANDLER_BASES, b) for b in owner.bases))
        for i, param in enumerate(params):
            if param.annotation and any_match(REQUEST_TYPES, param.annotation):
                run.aliases[param.name] = "request"
            if owner is not None and i == 0 and param.name in ("self", "cls"):
                # Fields another method stored from a source; anything else read from self
                # is the receiver's (param:0), so a caller's tainted object reaches sinks.
                state.write(param.name, "", (Trace("param:0", (Step(
                    info.path, func.line, "step", f"parameter {param.name!r}"),),
                    PARAM_MARKS),))
                for path, taint in owner.fields.items():
                    state.write(param.name, path, taint)
                continue
            from_url = (view or (request_at is not None and i > request_at) or (
                resolver and param.name not in RESOLVER_CONTEXT
                and not (param.annotation or "").split("[")[0].endswith("Info"))) and (
                param.name != "request" and not (param.annotation and any_match(
                    REQUEST_TYPES, param.annotation)) and param.name not in safe
                and not _safe_annotation(param.annotation) and not _is_dependency(param))
            segment = from_url and param.name in segments
            step = Step(info.path, func.line, "source" if from_url else "step",
                        f"route parameter {param.name!r} (web input)" if from_url
                        else f"parameter {param.name!r}")
            state.write(param.name, "", (
                (Trace("web", (step,), frozenset({SEGMENT}) if segment else frozenset()),)
                if from_url else (Trace(f"param:{i}", (step,), PARAM_MARKS),)))
        run.release(run.block(func.body, state))
        return run

    def analyse(self) -> list[Hit]:
        """Every flow from a source to a sink in the analysed modules (deduplicated)."""
        for path in self._order:
            if self._open(path) is None:
                continue
            # This module's turn, then at once the turns of the modules its calls reached
            # (parsed by then): each is released after its turn.
            while self.modules:
                self._turn(next(iter(self.modules.values())))
        unique: dict[tuple[str, str, int, tuple[tuple[str, int], ...]], Hit] = {}
        # In a canonical order, not the order functions happened to be run in: the modules
        # are analysed in the order calls reach them, and a tie (two flows to one sink) must
        # not be decided by which module was analysed first.
        for hit in sorted(self.hits, key=_hit_order):
            key = (hit.rule, hit.sink_path, hit.sink_line,
                   tuple((s.path, s.line) for s in hit.trace.steps))
            unique.setdefault(key, hit)
        return list(unique.values())


def _hit_order(hit: Hit) -> tuple[object, ...]:
    # Hits at the same positions keep the order one run found them in (a line with two
    # sinks of one rule reports the first); sorted is stable.
    # A flow of input of any shape before a contained one at the same positions.
    return (hit.rule, hit.sink_path, hit.sink_line,
            tuple((s.path, s.line) for s in hit.trace.steps), hit.shape is not None)


class _NoCalls:
    def resolve(self, run: Evaluator, call: ir.Call) -> tuple[Summary, bool] | None:
        return None


def _class_name(node: ir.Expr) -> str:
    """``C`` for a constructor callee ``C`` or ``C[T]`` (empty for anything else)."""
    if isinstance(node, ir.Sub):
        node = node.obj
    return node.id if isinstance(node, ir.Name) else ""


def _callee(node: ir.Expr) -> ir.Expr:
    return node.func if isinstance(node, ir.Call) else node


def _is_test_module(path: str) -> bool:
    """A pytest module by its name (``test_*.py``, ``*_test.py``, ``conftest.py``)."""
    name = path.rsplit("/", 1)[-1]
    return name == "conftest.py" or (name.endswith(".py") and (
        name.startswith("test_") or name.endswith("_test.py")))


def _json_route(func: ir.FuncDef, run: FunctionRun, info: ModuleInfo) -> bool:
    """A route of a framework that serialises the returned value as JSON (FastAPI), with no
    ``response_class`` that sends it as HTML."""
    if not any(any_match(JSON_ROUTE_MODULES, module) for module in info.imports.values()):
        return False
    routes = [d for d in func.decorators if isinstance(d, ir.Call)
              and any_match(ROUTE_DECORATORS, run.dotted(d.func) or "")]
    return bool(routes) and not any(
        key == "response_class" and any_match(HTML_RESPONSE_CLASSES, run.dotted(value) or "")
        for d in routes for key, value in d.kwargs)


def _view_class(owner: ClassInfo, info: ModuleInfo, depth: int = 0) -> bool:
    """A class-based view: a base is a framework's view class, directly or through the
    module's own classes (``class Base(MethodView)``, ``class Page(Base)``)."""
    for base in owner.bases:
        if any_match(VIEW_BASES, base):
            return True
        local = info.classes.get(base)
        if local is not None and local is not owner and depth < 8 and _view_class(
                local, info, depth + 1):
            return True
    return False


def _is_resolver(func: ir.FuncDef, decorators: list[str], owner: ClassInfo | None) -> bool:
    """A GraphQL resolver: its arguments (but the parent and the context) are query input."""
    if any(any_match(RESOLVER_DECORATORS, d) for d in decorators):
        return True
    graphene = owner is not None and any(any_match(GRAPHENE_BASES, b) for b in owner.bases)
    return graphene and (func.name.startswith("resolve_") or func.name == "mutate")


def _converters(func: ir.FuncDef) -> set[str]:
    safe: set[str] = set()
    for deco in func.decorators:
        if isinstance(deco, ir.Call):
            for arg in deco.args:
                if isinstance(arg, ir.Const) and isinstance(arg.value, str):
                    safe.update(name for conv, name in _CONVERTER.findall(arg.value)
                                if conv in SAFE_CONVERTERS)
    return safe


def _segments(func: ir.FuncDef, run: Evaluator) -> set[str]:
    """The parameters that are one URL path segment in every route of ``func``: a field of
    each route's constant string with a converter that excludes "/" (see
    ``SEGMENT_CONVERTERS``). A route string that is not a constant decides nothing: none."""
    fields: list[dict[str, str]] = []
    for deco in func.decorators:
        if not (isinstance(deco, ir.Call) and any_match(ROUTE_DECORATORS,
                                                          run.dotted(deco.func) or "")):
            continue
        rule = deco.args[0] if deco.args else next(
            (v for k, v in deco.kwargs if k in ("rule", "path")), None)
        if rule is None or isinstance(rule, ir.Seq | ir.Dict):
            continue  # @require_http_methods(["GET"]): not a route string
        text = run.const(rule)
        if not isinstance(text, str):
            return set()
        found = {name: conv for conv, name in _FLASK_FIELD.findall(text)}
        found.update({name: conv for name, conv in _BRACE_FIELD.findall(text)})
        fields.append(found)
    if not fields:
        return set()
    names = set.intersection(*(set(f) for f in fields))
    return {n for n in names if all(f[n] in SEGMENT_CONVERTERS for f in fields)}


def _safe_annotation(annotation: str | None) -> bool:
    if not annotation:
        return False
    base = annotation.split("=")[0].strip().removeprefix("Optional[").rstrip("]")
    return base in SAFE_ANNOTATIONS or base.split(".")[-1] in SAFE_ANNOTATIONS


def _is_dependency(param: ir.Param) -> bool:
    default = param.default
    return isinstance(default, ir.Call) and isinstance(default.func, ir.Name | ir.Attr) and (
        (default.func.id if isinstance(default.func, ir.Name) else default.func.name)
        in ("Depends", "Security"))


def _index(path: str, module: ir.Module) -> ModuleInfo:
    package = module_name(path).split(".")
    if not path.endswith("__init__.py"):
        package = package[:-1]
    imports: dict[str, str] = {}
    functions: dict[str, ir.FuncDef] = {}
    classes: dict[str, ClassInfo] = {}
    owners: dict[int, ClassInfo | None] = {}
    defs: list[ir.FuncDef] = []

    def visit(stmts: tuple[ir.Stmt, ...], owner: ClassInfo | None, top: bool) -> None:
        for stmt in stmts:
            if isinstance(stmt, ir.Import) and top:
                for mod, name, alias in stmt.names:
                    if stmt.level:
                        base = package[: len(package) - stmt.level + 1] if stmt.level > 1 \
                            else package
                        mod = ".".join([*base, mod] if mod else base)
                    imports[alias] = f"{mod}.{name}" if name else (
                        mod if alias != mod.split(".")[0] else alias)
            elif isinstance(stmt, ir.Assign) and top and len(stmt.targets) == 1 and isinstance(
                    stmt.targets[0], ir.Name):
                # An import under another name. A later value does not undo an import
                # (``except ImportError: yaml = None`` keeps ``yaml`` the module).
                named = _module_alias(stmt.value, imports)
                if named is not None:
                    imports[stmt.targets[0].id] = named
            elif isinstance(stmt, ir.FuncDef):
                defs.append(stmt)
                owners[id(stmt)] = owner
                if owner is not None:
                    owner.methods.setdefault(stmt.name, stmt)
                elif top:
                    functions[stmt.name] = stmt
                visit(stmt.body, None, False)
            elif isinstance(stmt, ir.ClassDef):
                info = ClassInfo(stmt.name, tuple(_dotted(b, imports) for b in stmt.bases), {})
                classes.setdefault(stmt.name, info)
                visit(stmt.body, info, False)
            else:
                for child in _children(stmt):
                    visit(child, owner, top)

    visit(module.body, None, True)
    return ModuleInfo(path, module, imports, functions, classes, owners, defs)


#: Builtins a module may rename at its top level (``ev = eval``) to hide their calls.
_RENAMED_BUILTINS = frozenset({"eval", "exec", "compile", "__import__", "getattr", "open"})


def _module_alias(value: ir.Expr, imports: dict[str, str]) -> str | None:
    """The name a top-level ``x = value`` makes ``x`` stand for, as an import would: a
    renamed builtin (``ev = eval``), an imported module's attribute (``run = os.system``) or
    a constant import (``m = __import__('pickle')``); None for any other value."""
    if isinstance(value, ir.Name):
        if value.id in imports:
            return imports[value.id]
        return value.id if value.id in _RENAMED_BUILTINS else None
    if isinstance(value, ir.Attr):
        base = _module_alias(value.obj, imports)
        return f"{base}.{value.name}" if base is not None else None
    if isinstance(value, ir.Call) and isinstance(value.func, ir.Name | ir.Attr) and len(
            value.args) == 1 and isinstance(value.args[0], ir.Const) and isinstance(
            value.args[0].value, str) and value.args[0].value.replace(".", "_").isidentifier():
        callee = _dotted(value.func, imports)
        if callee in ("__import__", "importlib.import_module"):
            module = value.args[0].value
            return module if callee == "importlib.import_module" else module.split(".")[0]
    return None


def _children(stmt: ir.Stmt) -> list[tuple[ir.Stmt, ...]]:
    if isinstance(stmt, ir.If):
        return [stmt.body, stmt.orelse]
    if isinstance(stmt, ir.Loop):
        return [stmt.body, stmt.orelse]
    if isinstance(stmt, ir.With):
        return [stmt.body]
    if isinstance(stmt, ir.Try):
        return [stmt.body, *(h for _, h in stmt.handlers), stmt.orelse, stmt.final]
    if isinstance(stmt, ir.Branches):
        return list(stmt.bodies)
    return []


def _dotted(node: ir.Expr, imports: dict[str, str]) -> str:
    if isinstance(node, ir.Name):
        return imports.get(node.id, node.id)
    if isinstance(node, ir.Attr):
        return f"{_dotted(node.obj, imports)}.{node.name}"
    return ""
