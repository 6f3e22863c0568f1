"""Statement semantics: one function (or a module's top level) run flow-sensitively over
the abstract state. Branches are analysed separately and joined; a condition that folds to a
constant runs one branch only; a path that returns, raises or aborts stops carrying data."""

from __future__ import annotations

from . import ir
from .catalogue import BODY_ATTRS, NO_RETURN, RESPONSE, any_match
from .exprs import Evaluator, Resolver
from .spec import Catalogue
from .state import UNKNOWN, State, access_path, join
from .values import CLEAN, Step, Taint, extend, union

#: Returned calls that are not an HTML body (the XSS view-return sink ignores them).
_NOT_HTML = ("*jsonify", "*JsonResponse", "*JSONResponse", "*json_response", "json.dumps",
             "*render_template", "*redirect", "*HttpResponseRedirect", "*RedirectResponse",
             "*send_file", "*send_from_directory", "*FileResponse", "*abort", "*Response",
             "*HttpResponse", "*make_response", "*render", "*HTMLResponse",
             "*PlainTextResponse", "*escape", "*dumps", "*render_template_string", "*Markup",
             "*mark_safe", "*format_html")


class FunctionRun(Evaluator):
    """Runs statements; collects the returned taint and the sinks reached."""

    view = False  # a web view: its returned body is an XSS sink

    def __init__(self, path: str, cat: Catalogue, imports: dict[str, str],
                 resolver: Resolver, class_bases: tuple[str, ...] = ()) -> None:
        super().__init__(path, cat, imports, resolver, class_bases)
        self.returns: list[Taint] = []
        self._jumps: list[list[State]] = []

    def block(self, stmts: tuple[ir.Stmt, ...], state: State | None) -> State | None:
        """Run ``stmts`` from ``state``; None when no path reaches the end."""
        for stmt in stmts:
            if state is None:
                return None
            state = self.stmt(stmt, state)
        return state

    def stmt(self, stmt: ir.Stmt, state: State) -> State | None:
        """The state after ``stmt``."""
        self.state = state
        if isinstance(stmt, ir.Assign):
            # resp = make_response(x): the body's findings are the response's, held until it
            # leaves the function (a content type set meanwhile may make it not HTML).
            named = stmt.targets[0].id if len(stmt.targets) == 1 and isinstance(
                stmt.targets[0], ir.Name) else None
            self.hold_at = stmt.value if named and isinstance(stmt.value, ir.Call) else None
            self.held = []
            taint = self.eval(stmt.value)
            self.hold_at = None
            for target in stmt.targets:
                self.bind(target, taint, stmt.value, stmt.line)
                self.typed(target, stmt.value)
            if named:
                self.hold(named)
            return self.state
        if isinstance(stmt, ir.AugAssign):
            # x += v is x = x + v (the shapes of its input too: url += "&q=" + q).
            built = ir.Op(stmt.line, stmt.op, (stmt.target, stmt.value))
            taint = self.eval(built)
            where = access_path(stmt.target, self.state)
            if where is not None and not where[1] and self.const(stmt.value) is not UNKNOWN \
                    and not taint:
                before = self.state.const(where[0])
                self.bind(stmt.target, taint, built, stmt.line)
                if isinstance(before, str) and isinstance(self.const(stmt.value), str):
                    self.state.set_const(where[0], before + str(self.const(stmt.value)))
                return self.state
            self.bind(stmt.target, taint, built, stmt.line)
            return self.state
        if isinstance(stmt, ir.ExprStmt):
            self.eval(stmt.value)
            value = stmt.value
            if isinstance(value, ir.Call) and isinstance(value.func, ir.Attr) and \
                    value.func.name == "set" and len(value.args) == 2:
                # resp.headers.set("Content-Type", v) is resp.headers["Content-Type"] = v
                self.typed(ir.Sub(value.line, value.func.obj, value.args[0]), value.args[1])
            if isinstance(value, ir.Call) and any_match(NO_RETURN, self.dotted(value.func) or ""):
                self.release(self.state)
                return None
            return self.state
        if isinstance(stmt, ir.Return):
            if stmt.value is not None:
                taint = self.eval(stmt.value)
                self.returns.append(extend(taint, Step(self.path, stmt.line, "return")))
                if self.view and taint:
                    self._view_return(stmt.value, taint, stmt.line)
            self.release(self.state)
            return None
        if isinstance(stmt, ir.Raise):
            if stmt.value is not None:
                self.eval(stmt.value)
            self.release(self.state)
            return None
        if isinstance(stmt, ir.Jump):
            if self._jumps:
                self._jumps[-1].append(state)
            return None
        if isinstance(stmt, ir.If):
            return self._if(stmt, state)
        if isinstance(stmt, ir.Loop):
            return self._loop(stmt, state)
        if isinstance(stmt, ir.With):
            for ctx, alias in stmt.items:
                taint = self.eval(ctx)
                if alias is not None:
                    self.bind(alias, taint, ctx, stmt.line)
            return self.block(stmt.body, self.state)
        if isinstance(stmt, ir.Try):
            return self._try(stmt, state)
        if isinstance(stmt, ir.Branches):
            self.eval(stmt.subject)
            ends = [self.block(body, state.copy()) for body in stmt.bodies]
            return join([state, *ends])
        if isinstance(stmt, ir.Import):
            for module, name, local in stmt.names:
                if stmt.level == 0:
                    self.imports[local] = f"{module}.{name}" if name else (
                        module if local != module.split(".")[0] else local)
            return state
        if isinstance(stmt, ir.FuncDef | ir.ClassDef):
            state.write(stmt.name, "", CLEAN)  # analysed on their own
            return state
        return state

    def _if(self, stmt: ir.If, state: State) -> State | None:
        test = self.const(stmt.test)
        if test is not UNKNOWN:  # a branch that cannot run carries nothing
            return self.block(stmt.body if test else stmt.orelse, state)
        self.eval(stmt.test)
        before = self.state
        self.state = before.copy()
        self.refine(stmt.test, True)
        body = self.block(stmt.body, self.state)
        self.state = before.copy()
        self.refine(stmt.test, False)
        orelse = self.block(stmt.orelse, self.state)
        return join([body, orelse])

    def _loop(self, stmt: ir.Loop, state: State) -> State | None:
        if stmt.target is None and self.const(stmt.iter) is False:
            return self.block(stmt.orelse, state)
        items = self.eval(stmt.iter)
        self._jumps.append([])
        ends: list[State | None] = [state]
        current: State | None = state
        for _ in range(2):  # twice: what one iteration stores, the next one reads
            entry = join([state, current])
            assert entry is not None
            self.state = entry.copy()
            if stmt.target is not None:
                self.bind(stmt.target, items, None, stmt.line)
            else:
                self.refine(stmt.iter, True)
            current = self.block(stmt.body, self.state)
            ends.append(current)
        ends.extend(self._jumps.pop())
        after = join(ends)
        if after is None:
            return None
        if stmt.target is None:
            self.state = after.copy()
            self.refine(stmt.iter, False)
            after = self.state
        return self.block(stmt.orelse, after)

    def _try(self, stmt: ir.Try, state: State) -> State | None:
        body = self.block(stmt.body, state.copy())
        entry = join([state, body])
        assert entry is not None
        ends: list[State | None] = [self.block(stmt.orelse, body) if body else None]
        for name, handler in stmt.handlers:
            start = entry.copy()
            if name:
                start.write(name, "", CLEAN)
            ends.append(self.block(handler, start))
        after = join(ends)
        if stmt.final:
            final_entry = join([after, entry]) if after is None else after
            if final_entry is None:
                return None
            result = self.block(stmt.final, final_entry)
            return result if after is not None else None
        return after

    def _view_return(self, value: ir.Expr, taint: Taint, line: int) -> None:
        if isinstance(value, ir.Dict | ir.Seq):
            return  # serialised as JSON by the framework
        if isinstance(value, ir.Call) and any_match(_NOT_HTML, self.dotted(value.func) or ""):
            return
        if isinstance(value, ir.Name):
            # A variable holding a JSON-ish literal container is not an HTML body either.
            paths = self.state.vars.get(value.id, {})
            if any(k.startswith("[") for k in paths):
                return
            if paths:
                # A response object's body: what it was built from and its body attributes
                # (``resp.data = html``), not its headers, status or cookies.
                taint = union(*(t for k, t in paths.items()
                                if not k or k[1:].split(".")[0].split("[")[0] in BODY_ATTRS))
        taint = tuple(t for t in taint if RESPONSE not in t.cleared)
        if not taint:
            return  # built into a response: reported where it entered it
        for spec in self.cat.specs:
            if spec.view_return:
                for trace in taint:
                    self._hit(spec, trace, line, self.path, "returned as the response body")
