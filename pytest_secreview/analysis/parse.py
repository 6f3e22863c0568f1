"""Parser front end: tree-sitter's Python grammar to the engine's IR (:mod:`.ir`).

tree-sitter reads every Python 3 grammar whatever interpreter runs the review (3.12 f-strings,
``type`` aliases and generic functions parse under 3.11) and recovers from syntax errors: a
statement it cannot read becomes an ``ERROR`` node that is skipped here, so one broken function
does not lose the rest of the file.
"""

from __future__ import annotations

import ast
import re
import sys
from functools import lru_cache
from typing import Any

import tree_sitter_python
from tree_sitter import Language, Node, Parser

from ..textnorm import nfkc_bytes
from . import ir

_STRING_PREFIX = frozenset("rRbBuUfFtT")


@lru_cache(maxsize=1)
def _parser() -> Parser:
    return Parser(Language(tree_sitter_python.language()))


_TOP_LEVEL = re.compile(rb"^(?:async\s+def|def|class|@)[\s\w]", re.MULTILINE)


def parse_module(source: bytes) -> ir.Module:
    """The IR of one file. Never raises on bad syntax; ``errors`` counts the broken parts.

    tree-sitter recovers inside a statement, but an unclosed bracket can swallow everything
    after it. So when a top-level statement is broken, parsing starts again at the next line
    that begins a top-level ``def``, ``class`` or decorator (padded with newlines so line
    numbers stay those of the file): one broken function does not lose the functions after it.
    The source is read NFKC-normalised, as Python reads identifiers.
    """
    source = nfkc_bytes(source)  # identifiers as Python reads them; lines unchanged
    body: list[ir.Stmt] = []
    errors = 0
    offset = 0
    while True:
        root = _parser().parse(b"\n" * offset + source[_byte_of_line(source, offset):]
                               if offset else source).root_node
        restart = None
        for child in root.named_children:
            body.extend(_stmt(child))
            if child.has_error:
                errors += _count_errors(child)
                restart = _next_top_level(source, child.start_point[0] + 1)
                if restart is not None and restart <= child.end_point[0]:
                    break
                restart = None
        if restart is None:
            return ir.Module(tuple(body), errors)
        offset = restart


def _byte_of_line(source: bytes, line: int) -> int:
    pos = 0
    for _ in range(line):
        pos = source.find(b"\n", pos) + 1
        if pos == 0:
            return len(source)
    return pos


def _next_top_level(source: bytes, after_line: int) -> int | None:
    """The 0-based number of the first top-level definition line after ``after_line``."""
    start = _byte_of_line(source, after_line)
    match = _TOP_LEVEL.search(source, start)
    return source.count(b"\n", 0, match.start()) if match else None


def _count_errors(node: Node) -> int:
    if node.is_error or node.is_missing:
        return 1
    if not node.has_error:
        return 0
    return sum(_count_errors(child) for child in node.children)


def _line(node: Node) -> int:
    return node.start_point[0] + 1


def _text(node: Node | None) -> str:
    if node is None or not node.text:
        return ""
    # Interned: a project repeats the same names and literals thousands of times, and the
    # summaries and flows kept after a module's IR is released refer to them (one copy each).
    return sys.intern(node.text.decode("utf-8", "replace"))


def _block(node: Node | None) -> tuple[ir.Stmt, ...]:
    if node is None:
        return ()
    out: list[ir.Stmt] = []
    for child in node.named_children:
        out.extend(_stmt(child))
    return tuple(out)


def _field(node: Node, name: str) -> Node | None:
    return node.child_by_field_name(name)


def _stmt(node: Node) -> list[ir.Stmt]:
    kind, line = node.type, _line(node)
    handler = _STMTS.get(kind)
    if handler is not None:
        result: list[ir.Stmt] = handler(node, line)
        return result
    if kind == "block" or (kind == "ERROR" and node.has_error):
        # An ERROR node may still wrap whole statements tree-sitter could read.
        return [s for child in node.named_children if child.type in _STMTS for s in _stmt(child)]
    return []


def _expression_statement(node: Node, line: int) -> list[ir.Stmt]:
    out: list[ir.Stmt] = []
    for child in node.named_children:
        if child.type == "assignment":
            out.extend(_assignment(child, line))
        elif child.type == "augmented_assignment":
            op = _text(_field(child, "operator")).rstrip("=")
            out.append(ir.AugAssign(line, _target(_field(child, "left")), op,
                                    expr(_field(child, "right"))))
        else:
            out.append(ir.ExprStmt(line, expr(child)))
    return out


def _assignment(node: Node, line: int) -> list[ir.Stmt]:
    targets = [_target(_field(node, "left"))]
    right = _field(node, "right")
    while right is not None and right.type == "assignment":  # a = b = value
        targets.append(_target(_field(right, "left")))
        right = _field(right, "right")
    if right is None:  # an annotation without a value
        return []
    return [ir.Assign(line, tuple(targets), expr(right))]


def _target(node: Node | None) -> ir.Expr:
    if node is not None and node.type in ("pattern_list", "tuple_pattern", "list_pattern",
                                          "expression_list"):
        return ir.Seq(_line(node), "tuple", tuple(_target(c) for c in node.named_children))
    if node is not None and node.type in ("list_splat_pattern", "parenthesized_expression"):
        inner = node.named_children
        return _target(inner[0]) if inner else ir.Opaque(_line(node), ())
    return expr(node)


def _if(node: Node, line: int) -> list[ir.Stmt]:
    orelse: tuple[ir.Stmt, ...] = ()
    alternatives = node.children_by_field_name("alternative")
    for alt in reversed(alternatives):
        if alt.type == "else_clause":
            orelse = _block(_field(alt, "body"))
        else:  # elif_clause: an If nested in the else branch
            orelse = (ir.If(_line(alt), expr(_field(alt, "condition")),
                            _block(_field(alt, "consequence")), orelse),)
    return [ir.If(line, expr(_field(node, "condition")), _block(_field(node, "consequence")),
                  orelse)]


def _else(node: Node) -> tuple[ir.Stmt, ...]:
    alt = _field(node, "alternative")
    return _block(_field(alt, "body")) if alt is not None else ()


def _for(node: Node, line: int) -> list[ir.Stmt]:
    return [ir.Loop(line, _target(_field(node, "left")), expr(_field(node, "right")),
                    _block(_field(node, "body")), _else(node))]


def _while(node: Node, line: int) -> list[ir.Stmt]:
    return [ir.Loop(line, None, expr(_field(node, "condition")), _block(_field(node, "body")),
                    _else(node))]


def _with(node: Node, line: int) -> list[ir.Stmt]:
    items: list[tuple[ir.Expr, ir.Expr | None]] = []
    for clause in node.named_children:
        if clause.type != "with_clause":
            continue
        for item in clause.named_children:
            value = _field(item, "value")
            if value is not None and value.type == "as_pattern":
                parts = value.named_children
                alias = _field(value, "alias")
                target = alias.named_children[0] if alias and alias.named_children else None
                items.append((expr(parts[0]), _target(target) if target else None))
            elif value is not None:
                items.append((expr(value), None))
    return [ir.With(line, tuple(items), _block(_field(node, "body")))]


def _try(node: Node, line: int) -> list[ir.Stmt]:
    handlers: list[tuple[str | None, tuple[ir.Stmt, ...]]] = []
    orelse: tuple[ir.Stmt, ...] = ()
    final: tuple[ir.Stmt, ...] = ()
    for child in node.named_children:
        if child.type in ("except_clause", "except_group_clause"):
            name = None
            for part in child.named_children:
                alias = _field(part, "alias") if part.type == "as_pattern" else None
                if alias is not None:
                    name = _text(alias).strip()
            body = [c for c in child.named_children if c.type == "block"]
            handlers.append((name, _block(body[0]) if body else ()))
        elif child.type == "else_clause":
            orelse = _block(_field(child, "body"))
        elif child.type == "finally_clause":
            blocks = [c for c in child.named_children if c.type == "block"]
            final = _block(blocks[0]) if blocks else ()
    return [ir.Try(line, _block(_field(node, "body")), tuple(handlers), orelse, final)]


def _match(node: Node, line: int) -> list[ir.Stmt]:
    body = _field(node, "body")
    cases = body.children_by_field_name("alternative") if body is not None else []
    bodies = tuple(_block(_field(case, "consequence")) for case in cases)
    return [ir.Branches(line, expr(_field(node, "subject")), bodies)]


def _function(node: Node, line: int, decorators: tuple[ir.Expr, ...] = ()) -> list[ir.Stmt]:
    params: list[ir.Param] = []
    kwonly = False
    plist = _field(node, "parameters")
    for p in plist.named_children if plist is not None else []:
        kind = "kwonly" if kwonly else "pos"
        name_node: Node | None = p
        annotation = default = None
        if p.type in ("typed_parameter", "typed_default_parameter", "default_parameter"):
            name_node = _field(p, "name") or (p.named_children[0] if p.named_children else None)
            annotation = _text(_field(p, "type")) or None
            value = _field(p, "value")
            default = expr(value) if value is not None else None
            if name_node is not None and name_node.type in ("list_splat_pattern",
                                                            "dictionary_splat_pattern"):
                kind = "var" if name_node.type == "list_splat_pattern" else "varkw"
                name_node = name_node.named_children[0] if name_node.named_children else None
        elif p.type in ("list_splat_pattern", "dictionary_splat_pattern"):
            kind = "var" if p.type == "list_splat_pattern" else "varkw"
            name_node = p.named_children[0] if p.named_children else None
        elif p.type == "keyword_separator":
            kwonly = True
            continue
        elif p.type != "identifier":
            continue
        if kind == "var":
            kwonly = True
        if name_node is not None:
            params.append(ir.Param(_text(name_node), annotation, default, kind))
    return [ir.FuncDef(line, _text(_field(node, "name")), tuple(params),
                       _block(_field(node, "body")), decorators, node.end_point[0] + 1)]


def _class(node: Node, line: int, decorators: tuple[ir.Expr, ...] = ()) -> list[ir.Stmt]:
    supers = _field(node, "superclasses")
    bases = tuple(expr(b) for b in supers.named_children) if supers is not None else ()
    return [ir.ClassDef(line, _text(_field(node, "name")), bases, _block(_field(node, "body")))]


def _decorated(node: Node, line: int) -> list[ir.Stmt]:
    decorators = tuple(expr(d.named_children[0]) for d in node.named_children
                       if d.type == "decorator" and d.named_children)
    definition = _field(node, "definition")
    if definition is None:
        return []
    if definition.type == "class_definition":
        return _class(definition, _line(definition), decorators)
    return _function(definition, _line(definition), decorators)


def _import(node: Node, line: int) -> list[ir.Stmt]:
    names: list[tuple[str, str | None, str]] = []
    for child in node.children_by_field_name("name"):
        dotted = _field(child, "name") if child.type == "aliased_import" else child
        alias = _field(child, "alias") if child.type == "aliased_import" else None
        module = _text(dotted)
        names.append((module, None, _text(alias) if alias else module.split(".")[0]))
    return [ir.Import(line, tuple(names), 0)] if names else []


def _import_from(node: Node, line: int) -> list[ir.Stmt]:
    module_node = _field(node, "module_name")
    level, module = 0, _text(module_node)
    if module_node is not None and module_node.type == "relative_import":
        prefix = [c for c in module_node.named_children if c.type == "import_prefix"]
        level = len(_text(prefix[0])) if prefix else 0
        dotted = [c for c in module_node.named_children if c.type == "dotted_name"]
        module = _text(dotted[0]) if dotted else ""
    names: list[tuple[str, str | None, str]] = []
    for child in node.children_by_field_name("name"):
        dotted_name = _field(child, "name") if child.type == "aliased_import" else child
        alias = _field(child, "alias") if child.type == "aliased_import" else None
        name = _text(dotted_name)
        names.append((module, name, _text(alias) if alias else name))
    return [ir.Import(line, tuple(names), level)] if names else []


def _simple(make: Any) -> Any:
    def handler(node: Node, line: int) -> list[ir.Stmt]:
        children = node.named_children
        return [make(line, expr(children[0]) if children else None)]
    return handler


_STMTS: dict[str, Any] = {
    "expression_statement": _expression_statement,
    "return_statement": _simple(ir.Return),
    "raise_statement": _simple(ir.Raise),
    "assert_statement": lambda n, line: [ir.ExprStmt(line, expr(n.named_children[0]))]
    if n.named_children else [],
    "delete_statement": lambda n, line: [],
    "break_statement": lambda n, line: [ir.Jump(line, "break")],
    "continue_statement": lambda n, line: [ir.Jump(line, "continue")],
    "if_statement": _if,
    "for_statement": _for,
    "while_statement": _while,
    "with_statement": _with,
    "try_statement": _try,
    "match_statement": _match,
    "function_definition": _function,
    "class_definition": _class,
    "decorated_definition": _decorated,
    "import_statement": _import,
    "import_from_statement": _import_from,
}


def expr(node: Node | None) -> ir.Expr:
    """The IR of one expression node (``Opaque`` for what the engine does not model)."""
    if node is None:
        return ir.Opaque(0, ())
    kind, line = node.type, _line(node)
    if kind == "identifier":
        return ir.Name(line, _text(node))
    if kind == "attribute":
        return ir.Attr(line, expr(_field(node, "object")), _text(_field(node, "attribute")))
    if kind == "subscript":
        keys = node.children_by_field_name("subscript")
        key = keys[0] if len(keys) == 1 else None
        if key is not None and key.type == "slice":
            return ir.Sub(line, expr(_field(node, "value")), None)
        return ir.Sub(line, expr(_field(node, "value")),
                      expr(key) if key is not None else ir.Opaque(line, ()))
    if kind == "call":
        return _call(node, line)
    if kind in ("string", "concatenated_string"):
        return _string(node, line)
    if kind == "integer" or kind == "float":
        return ir.Const(line, _number(_text(node)))
    if kind in ("true", "false", "none"):
        return ir.Const(line, {"true": True, "false": False, "none": None}[kind])
    if kind == "binary_operator":
        op = _text(_field(node, "operator"))
        return ir.Op(line, op, (expr(_field(node, "left")), expr(_field(node, "right"))))
    if kind == "boolean_operator":
        op = _text(_field(node, "operator"))
        return ir.BoolOp(line, op, (expr(_field(node, "left")), expr(_field(node, "right"))))
    if kind == "not_operator":
        return ir.Not(line, expr(_field(node, "argument")))
    if kind == "comparison_operator":
        return _compare(node, line)
    if kind in ("list", "tuple", "set", "expression_list", "pattern_list", "tuple_pattern"):
        seq = "tuple" if kind in ("expression_list", "pattern_list", "tuple_pattern") else kind
        return ir.Seq(line, seq, tuple(expr(c) for c in node.named_children))
    if kind == "dictionary":
        items: list[tuple[ir.Expr | None, ir.Expr]] = []
        for child in node.named_children:
            if child.type == "pair":
                items.append((expr(_field(child, "key")), expr(_field(child, "value"))))
            elif child.named_children:
                items.append((None, expr(child.named_children[0])))
        return ir.Dict(line, tuple(items))
    if kind in ("list_comprehension", "set_comprehension", "generator_expression",
                "dictionary_comprehension"):
        return _comprehension(node, line, kind)
    if kind == "conditional_expression":
        parts = node.named_children
        if len(parts) == 3:
            return ir.IfExp(line, expr(parts[1]), expr(parts[0]), expr(parts[2]))
    if kind == "named_expression":
        return ir.Walrus(line, _text(_field(node, "name")), expr(_field(node, "value")))
    if kind in ("parenthesized_expression", "await", "list_splat", "dictionary_splat",
                "keyword_argument", "as_pattern", "type_conversion") and node.named_children:
        inner = _field(node, "value") if kind == "keyword_argument" else node.named_children[0]
        return expr(inner)
    if kind == "lambda":
        return ir.Opaque(line, ())
    return ir.Opaque(line, tuple(expr(c) for c in node.named_children))


def _number(text: str) -> object:
    # Plain decimals first (most literals); 0x1F, 1_000, 1e3j through the full grammar.
    if text.isdigit():
        return int(text)
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return 0


def _call(node: Node, line: int) -> ir.Expr:
    func = expr(_field(node, "function"))
    arguments = _field(node, "arguments")
    args: list[ir.Expr] = []
    kwargs: list[tuple[str | None, ir.Expr]] = []
    if arguments is not None and arguments.type == "generator_expression":
        args.append(expr(arguments))
    elif arguments is not None:
        for arg in arguments.named_children:
            if arg.type == "keyword_argument":
                kwargs.append((_text(_field(arg, "name")), expr(_field(arg, "value"))))
            elif arg.type == "dictionary_splat":
                kwargs.append((None, expr(arg)))
            elif arg.type != "comment":
                args.append(expr(arg))
    return ir.Call(line, func, tuple(args), tuple(kwargs))


def _string(node: Node, line: int) -> ir.Expr:
    """A literal is a ``Const``; an f-string is an ``Op("fstring")`` over its parts in
    order: its literal text between the replacement fields as ``Const`` parts (where input
    sits in the text matters: after a ``?``, it is in a URL's query)."""
    parts: list[ir.Expr] = []
    literal: list[str] = []
    pending: list[str] = []  # literal text since the last replacement field
    fields = False
    strings = node.named_children if node.type == "concatenated_string" else [node]
    for string in strings:
        for child in string.named_children:
            if child.type == "interpolation":
                if pending:
                    parts.append(ir.Const(line, "".join(pending)))
                    pending = []
                fields = True
                inner = _field(child, "expression")
                parts.append(expr(inner))
                spec = _field(child, "format_specifier")
                parts.extend(expr(i) for i in (spec.named_children if spec else [])
                             if i.type == "interpolation")
            elif child.type in ("string_content", "escape_sequence"):
                literal.append(_text(child))
                pending.append(_text(child))
    if fields:
        if pending:
            parts.append(ir.Const(line, "".join(pending)))
        return ir.Op(line, "fstring", tuple(parts))
    return ir.Const(line, "".join(literal))


def _compare(node: Node, line: int) -> ir.Expr:
    operands: list[ir.Expr] = []
    ops: list[str] = []
    for i, child in enumerate(node.children):
        if node.field_name_for_child(i) == "operators":
            ops.append(" ".join(_text(child).split()))
        elif child.is_named:
            operands.append(expr(child))
    if not operands:
        return ir.Opaque(line, ())
    return ir.Compare(line, operands[0], tuple(ops), tuple(operands[1:]))


def _comprehension(node: Node, line: int, kind: str) -> ir.Expr:
    body = _field(node, "body")
    if body is not None and body.type == "pair":
        elts: tuple[ir.Expr, ...] = (expr(_field(body, "key")), expr(_field(body, "value")))
    else:
        elts = (expr(body),)
    gens: list[tuple[ir.Expr, ir.Expr, tuple[ir.Expr, ...]]] = []
    for child in node.named_children:
        if child.type == "for_in_clause":
            gens.append((_target(_field(child, "left")), expr(_field(child, "right")), ()))
        elif child.type == "if_clause" and gens and child.named_children:
            target, iterable, conds = gens[-1]
            gens[-1] = (target, iterable, (*conds, expr(child.named_children[0])))
    return ir.Comp(line, kind, elts, tuple(gens))
