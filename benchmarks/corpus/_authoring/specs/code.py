# Authoring spec: `pair` is provided by build.py when it loads this module.

PAIRS = [
pair("code-flask-eval-calculator", "code",
     "A calculator endpoint evaluates the query-string expression with eval",
     "The expression is parsed with ast.literal_eval, which only accepts literals",
     ["flask", "request.args", "direct", "eval"], ["safe-function"],
     {"calc.py": r'''
        import ast

        from flask import Flask, request

        app = Flask(__name__)


        @app.get("/calc")
        def calc():
            expression = request.args.get("expr", "0")
            value = eval(expression)  #@sink
            return {"result": value}
     '''},
     [("value = eval(expression)", "value = ast.literal_eval(expression)")]),

pair("code-django-exec-formula", "code",
     "A Django POST formula is placed into source code run by exec",
     "The formula is converted with float() before it is placed in the source",
     ["django", "request.POST", "fstring", "exec"], ["cast"],
     {"pricing.py": r'''
        from django.http import JsonResponse


        def apply_markup(request):
            factor = request.POST.get("factor", "1.0")
            namespace = {"base": 100.0}
            source = f"price = base * {factor}"
            exec(source, namespace)  #@sink
            return JsonResponse({"price": namespace["price"]})
     '''},
     [('factor = request.POST.get("factor", "1.0")', 'factor = float(request.POST.get("factor", "1.0"))')]),

pair("code-fastapi-compile-rule", "code",
     "A FastAPI query parameter is compiled as an expression and evaluated against a record",
     "The rule must be one of the predefined rule expressions",
     ["fastapi", "route-param", "compile"], ["allowlist"],
     {"rules_api.py": r'''
        from fastapi import FastAPI, HTTPException

        app = FastAPI()
        PREDEFINED = ("amount > 100", "country == 'NL'", "retries >= 3")


        @app.get("/match")
        def match(rule: str, amount: int = 0, country: str = "", retries: int = 0):
            record = {"amount": amount, "country": country, "retries": retries}
            code = compile(rule, "<rule>", "eval")  #@sink
            return {"match": bool(eval(code, {"__builtins__": {}}, record))}  #@sink
     '''},
     [('''            record = {"amount"''', '''            if rule not in PREDEFINED:
                raise HTTPException(status_code=400, detail="unknown rule")
            record = {"amount"''')]),

pair("code-aiohttp-tuple-unpack", "code",
     "aiohttp form data is unpacked into a tuple and the operator reaches eval",
     "The operator in the tuple is a constant",
     ["aiohttp", "post", "tuple-unpacking", "fstring", "eval"], ["constant"],
     {"filters.py": r'''
        from aiohttp import web


        async def filter_scores(request: web.Request) -> web.Response:
            data = await request.post()
            field, op = "score", data["op"]
            rows = [{"score": 10}, {"score": 55}, {"score": 90}]
            kept = [r for r in rows if eval(f"r['{field}'] {op} 50")]  #@sink
            return web.json_response(kept)
     '''},
     [('field, op = "score", data["op"]', 'field, op = "score", ">="')]),

pair("code-httpserver-rfile-exec", "code",
     "An http.server handler executes the request body when script mode is on",
     "Script mode is a constant False, so the exec branch cannot run",
     ["http.server", "rfile", "constant-folding", "exec"], ["dead-branch"],
     {"runner.py": r'''
        from http.server import BaseHTTPRequestHandler, HTTPServer

        SCRIPT_MODE = True


        class Runner(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length).decode()
                if SCRIPT_MODE:
                    exec(body, {})  #@sink
                self.send_response(204)
                self.end_headers()


        if __name__ == "__main__":
            HTTPServer(("127.0.0.1", 8001), Runner).serve_forever()
     '''},
     [("SCRIPT_MODE = True", "SCRIPT_MODE = False")]),

pair("code-py312-type-alias-eval", "code",
     "Python 3.12 type alias module: a query value is evaluated as a threshold expression",
     "The threshold is converted with int() instead of evaluated",
     ["flask", "request.values", "py312", "type-alias", "eval"], ["cast"],
     {"alerts.py": r'''
        from flask import Flask, request

        app = Flask(__name__)

        type Limits = dict[str, int]


        def limits_for(raw: str) -> Limits:
            return {"cpu": eval(raw)}  #@sink


        @app.get("/alerts")
        def alerts():
            return limits_for(request.values.get("cpu", "80"))
     '''},
     [('return {"cpu": eval(raw)}', 'return {"cpu": int(raw)}')]),

pair("code-removed-literal-eval", "code",
     "The pull request swaps ast.literal_eval for eval on a cookie value",
     "The pull request renames a variable and keeps ast.literal_eval",
     ["flask", "request.cookies", "eval"], ["safe-function"],
     {"prefs.py": r'''
        import ast

        from flask import Flask, request

        app = Flask(__name__)


        @app.get("/prefs")
        def prefs():
            stored = request.cookies.get("prefs", "{}")
            settings = eval(stored)  #@sink
            return {"theme": settings.get("theme", "light")}
     '''},
     [("settings = eval(stored)", "settings = ast.literal_eval(stored)")],
     base=[('stored = request.cookies.get("prefs", "{}")\n            settings = ast.literal_eval(stored)',
            'raw = request.cookies.get("prefs", "{}")\n            settings = ast.literal_eval(raw)')]),

pair("code-cli-argv-eval", "code",
     "A command-line tool evaluates its first argument (lower-severity source)",
     "The argument is converted with float()",
     ["cli", "sys.argv", "eval", "low-severity-source"], ["cast"],
     {"scale.py": r'''
        import sys


        def main():
            factor = eval(sys.argv[1])  #@sink
            for line in sys.stdin:
                print(float(line) * factor)


        if __name__ == "__main__":
            main()
     '''},
     [("factor = eval(sys.argv[1])", "factor = float(sys.argv[1])")]),

pair("code-cross-module-lambda", "code",
     "A cookie expression is passed to a helper in another changed module that builds a lambda with eval",
     "The view only passes expressions from the known list",
     ["flask", "request.cookies", "cross-module", "concat", "eval"], ["allowlist"],
     {"app.py": r'''
        from flask import Flask, abort, request

        from formulas import make_scorer

        app = Flask(__name__)
        KNOWN = ("x * 2", "x + 10", "x ** 2")


        @app.get("/score/<int:x>")
        def score(x):
            expr = request.cookies.get("scorer", "x * 2")
            return {"score": make_scorer(expr)(x)}
     ''', "formulas.py": r'''
        def make_scorer(expr):
            source = "lambda x: " + expr
            return eval(source)  #@sink
     '''},
     [('''            expr = request.cookies.get("scorer", "x * 2")
''', '''            expr = request.cookies.get("scorer", "x * 2")
            if expr not in KNOWN:
                abort(400)
''')]),

pair("code-starlette-json-exec", "code",
     "A Starlette handler runs a hook string from the JSON body with exec",
     "The hook string is overwritten with a constant no-op before exec",
     ["starlette", "request.json", "dict-constant-key", "exec"], ["overwritten"],
     {"hooks.py": r'''
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import JSONResponse
        from starlette.routing import Route


        async def run_hook(request: Request) -> JSONResponse:
            payload = await request.json()
            hook = payload["hook"]
            scope = {"result": None}
            exec(hook, scope)  #@sink
            return JSONResponse({"result": scope["result"]})


        app = Starlette(routes=[Route("/hook", run_hook, methods=["POST"])])
     '''},
     [('''            hook = payload["hook"]
''', '''            hook = payload["hook"]
            hook = "result = 0"
''')]),
]
