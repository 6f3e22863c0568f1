"""The default source catalogue (shared by every rule through the ``web`` and ``local``
presets) and the engine's built-in knowledge: casts that end every flow, guards that validate,
calls that never return, decorators that make a function a web view."""

from __future__ import annotations

import re
from functools import lru_cache

from .spec import SourceSpec, compiled

_WEB_ATTRS = (
    # Flask / Werkzeug
    "args", "form", "values", "json", "get_json", "cookies", "headers", "files", "data",
    "get_data", "stream", "view_args", "url", "full_path", "path", "base_url", "referrer",
    "query_string", "environ",
    # Django
    "GET", "POST", "COOKIES", "META", "body", "FILES", "read", "readline",
    # Starlette / FastAPI / aiohttp
    "query_params", "path_params", "form", "match_info", "query", "post", "rel_url", "text",
    "content", "raw_path", "params",
)

#: Request data (``sources: [web]``): a request object's attributes, however it is named when
#: it is a parameter typed ``Request`` (see :data:`REQUEST_TYPES`).
WEB: tuple[SourceSpec, ...] = (
    *(SourceSpec(f"*request.{attr}", "web") for attr in dict.fromkeys(_WEB_ATTRS)),
    # http.server handlers: the request line, headers and body.
    SourceSpec("self.path", "web", inside="*RequestHandler"),
    SourceSpec("self.headers", "web", inside="*RequestHandler"),
    SourceSpec("self.rfile", "web", inside="*RequestHandler"),
    SourceSpec("self.requestline", "web", inside="*RequestHandler"),
    # Django class-based views: the URL's captured arguments.
    SourceSpec("self.kwargs", "web", inside="*View"),
    SourceSpec("self.args", "web", inside="*View"),
    # Tornado handlers: arguments, cookies, headers and body (``self.request.body`` is a
    # ``*request.*`` attribute above); the URL's captures are the HTTP methods' parameters
    # (:data:`HANDLER_METHODS`).
    *(SourceSpec(f"self.{name}", "web", inside="*RequestHandler") for name in (
        "get_argument", "get_arguments", "get_query_argument", "get_query_arguments",
        "get_body_argument", "get_body_arguments", "get_cookie", "get_secure_cookie",
        "get_signed_cookie", "path_args", "path_kwargs", "decode_argument")),
)

#: Lower-severity inputs (``sources: [local]``): command line, stdin, environment.
LOCAL: tuple[SourceSpec, ...] = (
    SourceSpec("sys.argv", "local"),
    SourceSpec("input", "local"),
    SourceSpec("raw_input", "local"),
    SourceSpec("sys.stdin", "local"),
    SourceSpec("os.environ", "local"),
    SourceSpec("os.environb", "local"),
    SourceSpec("os.getenv", "local"),
    SourceSpec("os.getenvb", "local"),
)

PRESETS: dict[str, tuple[SourceSpec, ...]] = {"web": WEB, "local": LOCAL}

#: Parameter annotations that mark a request object (its attributes are :data:`WEB` sources).
REQUEST_TYPES = ("*Request", "*HttpRequest", "*web.Request", "*BaseRequest", "*WSGIRequest")

#: Decorators that make a function a web view whose parameters come from the URL or query.
ROUTE_DECORATORS = (
    "*.route", "*.get", "*.post", "*.put", "*.patch", "*.delete", "*.api_route",
    "*.websocket", "*.view", "*.head", "*.options", "api_view", "*.api_view",
    "require_http_methods", "*.require_http_methods", "require_GET", "*.require_GET",
    "require_POST", "*.require_POST", "csrf_exempt", "*.csrf_exempt", "login_required",
    "*.login_required",
)

#: Modules whose routes serialise a returned value as JSON unless the decorator's
#: ``response_class`` is an HTML response (FastAPI): what such a view returns is not an HTML
#: body (a ``PlainTextResponse`` is sent as text/plain).
JSON_ROUTE_MODULES = ("fastapi", "fastapi.*")
HTML_RESPONSE_CLASSES = ("*HTMLResponse",)

#: Decorators that look like routes (``*.patch``) but belong to tests: ``mock.patch`` and
#: pytest's fixtures and marks. A function they decorate is not a web view.
TEST_DECORATORS = ("mock.*", "unittest.mock.*", "*.mock.*", "pytest.*", "_pytest.*")

#: Classes whose HTTP-method methods (:data:`HANDLER_METHODS`) receive the URL's captured
#: groups as parameters (Tornado ``def get(self, slug)``).
HANDLER_BASES = ("tornado.web.RequestHandler", "*web.RequestHandler", "RequestHandler")
HANDLER_METHODS = frozenset({"get", "post", "put", "patch", "delete", "head", "options"})

#: Class-based views: the framework calls their HTTP-method methods (and Flask's
#: ``dispatch_request``) and sends what they return (Flask ``MethodView``/``View``, Django and
#: DRF views and viewsets, aiohttp ``web.View``, Starlette ``HTTPEndpoint``, Tornado).
VIEW_BASES = ("*View", "*ViewSet", "*Endpoint", *HANDLER_BASES)
VIEW_METHODS = HANDLER_METHODS | {"dispatch_request"}

#: GraphQL resolvers: every argument but the parent object and the execution context is the
#: query's input. Strawberry fields and mutations, Ariadne's ``@query.field("name")``
#: bindings, and Graphene's ``resolve_*`` methods and ``mutate`` of a ``Mutation``.
RESOLVER_DECORATORS = ("strawberry.field", "strawberry.mutation", "strawberry.subscription",
                       "strawberry.type.field", "*.field", "*.mutation_field",
                       "convert_kwargs_to_snake_case", "*.convert_kwargs_to_snake_case")
GRAPHENE_BASES = ("graphene.*", "*ObjectType", "*Mutation", "*Interface")
RESOLVER_CONTEXT = frozenset({"self", "cls", "root", "parent", "obj", "info", "_", "_root",
                              "_info", "_obj", "_parent"})

#: Annotations (FastAPI) and URL converters (Flask ``<int:id>``) whose values are validated.
SAFE_ANNOTATIONS = frozenset({"int", "float", "bool", "UUID", "uuid.UUID", "date", "datetime",
                              "Decimal", "conint", "PositiveInt"})
SAFE_CONVERTERS = frozenset({"int", "float", "uuid"})
#: Route converters whose value is one URL path segment, which cannot hold a "/" (Flask and
#: Werkzeug ``<name>``, ``<string:name>``, ``<any(a, b):name>``; Starlette and FastAPI
#: ``{name}``, ``{name:str}``); ``path`` and custom converters can.
SEGMENT_CONVERTERS = frozenset({"", "default", "string", "any", "str"})

#: Calls whose result carries no attacker-controlled text: numeric casts, sizes, hashes.
CLEAN_CALLS = (
    "int", "float", "bool", "complex", "len", "abs", "round", "hash", "id", "ord", "isinstance",
    "issubclass", "callable", "uuid.UUID", "UUID", "decimal.Decimal", "Decimal",
    "datetime.*", "*.isdigit", "*.isnumeric", "*.isdecimal", "*.isalnum", "*.isalpha",
    "*.isidentifier", "*.startswith", "*.endswith", "*.count", "*.find", "*.index",
    "hashlib.*", "*.hexdigest", "*.digest", "secrets.*", "uuid.uuid4", "uuid.uuid1",
    "*.exists", "*.isfile", "*.isdir", "math.*", "time.*", "random.*", "*.fetchall",
    "*.fetchone", "*.fetchmany", "type", "range", "enumerate.__len__", "sorted.__len__",
    "*.verify", "*.check_password_hash", "check_password_hash", "*.is_valid", "*.rowcount",
)

#: Calls on a value that validate it when the condition holds (``if name.isalnum():``).
VALIDATOR_METHODS = frozenset({"isdigit", "isnumeric", "isdecimal", "isalnum", "isalpha",
                               "isidentifier", "isascii"})
VALIDATOR_CALLS = ("re.fullmatch", "re.match", "*.fullmatch", "*.match", "isinstance",
                   "*.is_valid_*", "is_valid_*", "valid_*", "*.valid_*", "validate_*",
                   "*.validate_*", "is_safe_*", "*.is_safe_*", "url_has_allowed_host_and_scheme",
                   "*.url_has_allowed_host_and_scheme", "is_safe_url", "*.is_safe_url")

#: Containment checks: true when the first argument lies under a base directory.
CONTAINMENT_METHODS = frozenset({"startswith", "is_relative_to"})

#: Calls after which the code does not go on (the rest of the branch is dead).
NO_RETURN = ("abort", "*.abort", "sys.exit", "exit", "quit", "os._exit", "*.raise_for_status_",
             "flask.abort", "werkzeug.exceptions.abort")

#: Calls that copy their argument into the receiver (container mutation): into its items,
#: not its attributes (``d.update(form)`` does not change ``d.data_dir``).
MUTATORS = frozenset({"append", "extend", "insert", "add", "update", "setdefault",
                      "appendleft", "extendleft", "put", "push", "write", "writelines"})

#: Path joins: the input of their last component stays a URL path segment (see
#: ``values.SHAPES``); the result of any other call loses its input's shape.
PATH_JOINS = ("os.path.join", "posixpath.join", "pathlib.Path", "pathlib.PurePath",
              "pathlib.PosixPath", "pathlib.PurePosixPath", "*.joinpath")
#: Calls whose result is their argument's text, so its input sits where it did.
SHAPE_KEEPING = ("str", "os.fspath")

#: Look-ups by key (``d.get(k)``, ``d.pop(k)``, ``d.setdefault(k, v)``, ``Model.objects.get(
#: pk=k)``): the result is what the container holds (or the default), not the key. An input
#: key reaches the result only when the container itself holds input (``request.args.get(
#: name)``); a key looked up in a store the input did not build selects a stored object.
LOOKUPS = frozenset({"get", "pop", "setdefault"})


@lru_cache(maxsize=64)
def _combined(patterns: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{compiled(p).pattern})" for p in patterns))


@lru_cache(maxsize=65536)
def any_match(patterns: tuple[str, ...], name: str) -> bool:
    """True when ``name`` matches one of the globs (one regex per pattern list, and the
    answer per name cached: the same callee names recur all over a pull request)."""
    return _combined(patterns).match(name) is not None

#: Constructors of configured objects (XML parsers) whose constant keyword arguments are
#: remembered, so a sink condition can ask how the object passed to it was configured
#: (``parser=`` built with ``resolve_entities=True``).
CONFIGURED_CALLS = ("*XMLParser", "*XMLPullParser", "*ETCompatXMLParser", "*make_parser",
                    "*XMLReader")

#: Calls that import the module their first argument names: with a constant name the call is
#: that module, so ``__import__('o' + 's').system`` is ``os.system`` to every sink.
IMPORT_CALLS = ("__import__", "builtins.__import__", "importlib.import_module")
#: ``getattr(obj, 'name')`` with a constant name is ``obj.name``.
GETATTR_CALLS = ("getattr", "builtins.getattr")
#: Process launchers whose argument vector can start a shell (``['sh', '-c', cmd]``): the
#: command string is then a shell command line, as with ``shell=True``.
ARGV_CALLS = ("subprocess.*", "asyncio.create_subprocess_exec")
#: Programs that run the argument after :data:`SHELL_FLAGS` as a command line.
SHELLS = ("sh", "bash", "zsh", "dash", "ksh", "ash", "*/sh", "*/bash", "*/zsh", "*/dash",
          "*/ksh", "cmd", "cmd.exe", "*\\cmd.exe", "[Cc][Mm][Dd]", "[Cc][Mm][Dd].[Ee][Xx][Ee]")
SHELL_FLAGS = frozenset({"-c", "/c", "/C"})

#: Calls whose result is a response object, or HTML the response-body rules judge at the call
#: itself (a sink, an escaping or serialising builder): a value built by one carries the
#: :data:`RESPONSE` mark, so passing it on (``make_response(send_file(p))``) or returning it
#: (``resp = make_response(x); return resp``) is not a second finding of the same flow.
RESPONSE_CALLS = ("*jsonify", "*JsonResponse", "*JSONResponse", "*json_response",
                  "*render_template", "*render_template_string", "*redirect",
                  "*HttpResponse*", "*RedirectResponse", "*send_file", "*send_from_directory",
                  "*FileResponse", "*Response", "*make_response", "*TemplateResponse",
                  "*render_to_response", "*Markup", "*mark_safe", "*format_html")
#: The mark (in a trace's ``cleared`` set) of data inside a response object.
RESPONSE = "<response>"
#: Attributes of a response object that hold its body (``resp.data = html``); the others
#: (``headers``, ``status_code``, cookies) are not what the browser renders.
BODY_ATTRS = frozenset({"data", "body", "text", "content", "response"})
#: Settings of a response object that give its content type after it is built: the
#: attribute (``resp.mimetype = ...``) is the keyword of the sink's condition; a header
#: store (``resp.headers["Content-Type"] = ...``, Django's ``resp["Content-Type"]``) matches
#: a condition on that ``header``.
TYPE_ATTRS = frozenset({"mimetype", "content_type", "media_type"})
