"""Does a line run only when its function's caller asks for it?

A library that takes ``verify`` and maps ``verify=False`` to ``ssl.CERT_NONE`` honours its
caller's documented opt-out: the insecure choice is made where the caller writes
``verify=False`` (and reported there), not in the library. The same assignment made
unconditionally, under a condition on something else (a setting, the environment, a global),
or under a condition the parameter's default already meets (``def connect(verify=False)``:
insecure unless the caller says otherwise) is the code's own choice.

:func:`parameter_guarded` answers for one line of a Python file: True when the line sits in
the body of an ``if``/``elif`` inside its innermost function whose condition can only hold
when the caller passed a value for one of that function's parameters (a parameter with no
default, or with a literal default the condition rejects), and the function never assigns
that parameter itself. Anything else (no function, another condition, a default that is not a
literal, an ``else`` branch) is not guarded: the line is reported.

Only parameters the caller's own opt-out is reported under count (``names``: for TLS,
``verify``, ``verify_ssl``...; the caller's ``verify=False`` is a finding where it is
written), so moving the insecure choice behind a parameter never hides it: an
``insecure=True`` flag no pattern reports at the call is not an opt-out here.
"""

from __future__ import annotations

from collections.abc import Collection

from tree_sitter import Node

from ..textnorm import nfkc_bytes
from .parse import _parser

#: A parameter's default, when it is a literal: True, False, None, a number or a string.
_NO_DEFAULT = object()
_UNKNOWN = object()
_LITERALS = {"true": True, "false": False, "none": None}


def parameter_guarded(source: bytes, line: int, names: Collection[str]) -> bool:
    """True when 1-based ``line`` of the Python ``source`` runs only under a condition on a
    parameter of its enclosing function named one of ``names`` that the parameter's default
    does not meet."""
    source = nfkc_bytes(source)
    lines = source.split(b"\n")
    row = line - 1
    if not 0 <= row < len(lines) or not lines[row].strip():
        return False
    # The line's last character: inside the statement the line holds, also when the line
    # is the body of a one-line `if x: stmt`.
    column = len(lines[row].rstrip()) - 1
    root = _parser().parse(source).root_node
    node = root.named_descendant_for_point_range((row, column), (row, column))
    if node is None:
        return False
    conditions: list[Node] = []
    current: Node | None = node
    while current is not None and current.type not in ("function_definition", "lambda"):
        parent = current.parent
        if parent is not None and parent.type in ("if_statement", "elif_clause") \
                and parent.child_by_field_name("consequence") == current:
            condition = parent.child_by_field_name("condition")
            if condition is not None:
                conditions.append(condition)
        current = parent
    if current is None or current.type != "function_definition" or not conditions:
        return False
    params = _parameters(current)
    body = current.child_by_field_name("body")
    assigned = _assigned_names(body) if body is not None else set()
    params = {name: default for name, default in params.items()
              if name in names and name not in assigned}
    if not params:
        return False
    return any(_guard(condition, True, params) for condition in conditions)


def _parameters(function: Node) -> dict[str, object]:
    """The function's named parameters (not ``self``/``cls``, ``*args``, ``**kwargs``) and
    their literal defaults (:data:`_NO_DEFAULT`, or :data:`_UNKNOWN` when not a literal)."""
    found: dict[str, object] = {}
    parameters = function.child_by_field_name("parameters")
    if parameters is None:
        return found
    for child in parameters.named_children:
        if child.type == "identifier":
            found[_text(child)] = _NO_DEFAULT
        elif child.type == "typed_parameter":
            name = child.named_children[0] if child.named_children else None
            if name is not None and name.type == "identifier":
                found[_text(name)] = _NO_DEFAULT
        elif child.type in ("default_parameter", "typed_default_parameter"):
            name = child.child_by_field_name("name")
            value = child.child_by_field_name("value")
            if name is not None and name.type == "identifier":
                found[_text(name)] = _literal(value)
    found.pop("self", None)
    found.pop("cls", None)
    return found


def _literal(node: Node | None) -> object:
    if node is None:
        return _UNKNOWN
    if node.type in _LITERALS:
        return _LITERALS[node.type]
    if node.type == "integer":
        try:
            return int(_text(node), 0)
        except ValueError:
            return _UNKNOWN
    if node.type == "string" and not any(c.type == "interpolation" for c in node.children):
        content = [c for c in node.children if c.type == "string_content"]
        return "".join(_text(c) for c in content)
    return _UNKNOWN


def _assigned_names(body: Node) -> set[str]:
    """Names the body assigns (``x = ...``, ``x += ...``, ``for x in``, ``with ... as x``,
    ``x := ...``), outside nested functions and classes."""
    names: set[str] = set()
    stack = [body]
    while stack:
        node = stack.pop()
        if node.type in ("function_definition", "class_definition", "lambda"):
            continue
        target = None
        if node.type in ("assignment", "augmented_assignment", "for_statement"):
            target = node.child_by_field_name("left")
        elif node.type == "named_expression":
            target = node.child_by_field_name("name")
        elif node.type == "as_pattern":
            target = node.child_by_field_name("alias")
        if target is not None:
            names.update(_text(n) for n in _identifiers(target))
        stack.extend(node.named_children)
    return names


def _identifiers(node: Node) -> list[Node]:
    if node.type == "identifier":
        return [node]
    if node.type in ("pattern_list", "tuple_pattern", "list_pattern", "as_pattern_target",
                     "parenthesized_expression", "list_splat_pattern"):
        return [i for child in node.named_children for i in _identifiers(child)]
    return []


def _guard(node: Node, truth: bool, params: dict[str, object]) -> bool:
    """True when ``node`` can evaluate to ``truth`` only if the caller passed a parameter."""
    kind = node.type
    if kind == "parenthesized_expression" and node.named_children:
        return _guard(node.named_children[0], truth, params)
    if kind == "not_operator":
        argument = node.child_by_field_name("argument")
        return argument is not None and _guard(argument, not truth, params)
    if kind == "boolean_operator":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        operator = node.child_by_field_name("operator")
        if left is None or right is None or operator is None:
            return False
        sides = (_guard(left, truth, params), _guard(right, truth, params))
        # `a and b` is true only if both are: either side guarding is enough.
        conjunction = (_text(operator) == "and") == truth
        return any(sides) if conjunction else all(sides)
    if kind == "identifier" and _text(node) in params:
        default = params[_text(node)]
        return default is _NO_DEFAULT or (default is not _UNKNOWN and bool(default) != truth)
    if kind == "comparison_operator":
        return _comparison_guard(node, truth, params)
    return False


def _comparison_guard(node: Node, truth: bool, params: dict[str, object]) -> bool:
    """``p is False``, ``p == None``, ``p is not True``, ``False is p``... on a parameter."""
    operands = node.named_children
    operators = [_text(c) for c in node.children if not c.is_named]
    if len(operands) != 2:
        return False
    op = " ".join(operators)
    if op not in ("is", "is not", "==", "!="):
        return False
    name, other = operands
    if name.type != "identifier" or name.text is None or _text(name) not in params:
        name, other = other, name
    if name.type != "identifier" or _text(name) not in params:
        return False
    constant = _literal(other)
    if constant is _UNKNOWN:
        return False
    default = params[_text(name)]
    if default is _NO_DEFAULT:
        return True
    if default is _UNKNOWN:
        return False
    equal = default is constant if op.startswith("is") else default == constant
    holds = equal != op.endswith(("not", "!="))
    return holds != truth


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")
