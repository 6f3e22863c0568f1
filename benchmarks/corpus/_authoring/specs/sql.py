# Authoring spec: `pair` is provided by build.py when it loads this module.

PAIRS = [
pair("sql-flask-args-fstring", "sql",
     "Flask query-string name is formatted into a SELECT with an f-string and executed",
     "The same lookup passes the name as a bound parameter",
     ["flask", "request.args", "fstring", "dbapi"], ["parameterised"],
     {"app.py": r'''
        import sqlite3

        from flask import Flask, jsonify, request

        app = Flask(__name__)


        def db():
            return sqlite3.connect("users.db")


        @app.route("/users")
        def find_users():
            name = request.args.get("name", "")
            cur = db().cursor()
            cur.execute(f"SELECT id, email FROM users WHERE name = '{name}'")  #@sink
            rows = cur.fetchall()
            return jsonify([{"id": r[0], "email": r[1]} for r in rows])
     '''},
     [('cur.execute(f"SELECT id, email FROM users WHERE name = \'{name}\'")',
       'cur.execute("SELECT id, email FROM users WHERE name = ?", (name,))')]),

pair("sql-flask-form-concat-vars", "sql",
     "A form field flows through two variables and concatenation into cursor.execute",
     "The order id is cast to int before it is concatenated",
     ["flask", "request.form", "concat", "multi-variable", "dbapi"], ["cast"],
     {"orders.py": r'''
        import psycopg2
        from flask import Flask, request

        app = Flask(__name__)
        conn = psycopg2.connect("dbname=shop")


        @app.post("/orders/cancel")
        def cancel():
            raw = request.form["order_id"]
            order_id = raw.strip()
            clause = "WHERE id = " + order_id
            query = "UPDATE orders SET status = 'cancelled' " + clause
            with conn.cursor() as cur:
                cur.execute(query)  #@sink
            conn.commit()
            return {"ok": True}
     '''},
     [("order_id = raw.strip()", "order_id = str(int(raw.strip()))")]),

pair("sql-django-get-percent-raw", "sql",
     "Django GET parameter is %-formatted into Manager.raw",
     "The lookup uses raw() with a params list",
     ["django", "request.GET", "percent-format", "django-raw"], ["parameterised"],
     {"views.py": r'''
        from django.http import JsonResponse

        from .models import Book


        def search_books(request):
            author = request.GET.get("author", "")
            sql = "SELECT * FROM library_book WHERE author = '%s'" % author
            books = Book.objects.raw(sql)  #@sink
            return JsonResponse({"titles": [b.title for b in books]})
     '''},
     [("""sql = "SELECT * FROM library_book WHERE author = '%s'" % author
            books = Book.objects.raw(sql)""",
       """sql = "SELECT * FROM library_book WHERE author = %s"
            books = Book.objects.raw(sql, [author])""")]),

pair("sql-django-post-extra", "sql",
     "Django POST value is placed in QuerySet.extra(where=...) through .format",
     "The value goes through extra's params argument",
     ["django", "request.POST", "str.format", "django-extra"], ["parameterised"],
     {"views.py": r'''
        from django.http import JsonResponse
        from django.views.decorators.http import require_POST

        from .models import Ticket


        @require_POST
        def tickets_by_tag(request):
            tag = request.POST["tag"]
            where = "tags LIKE '%%{}%%'".format(tag)
            qs = Ticket.objects.extra(where=[where])  #@sink
            return JsonResponse({"ids": list(qs.values_list("id", flat=True))})
     '''},
     [("""where = "tags LIKE '%%{}%%'".format(tag)
            qs = Ticket.objects.extra(where=[where])""",
       """where = "tags LIKE %s"
            qs = Ticket.objects.extra(where=[where], params=["%" + tag + "%"])""")]),

pair("sql-fastapi-path-sqlalchemy-text", "sql",
     "FastAPI path parameter is interpolated into sqlalchemy.text",
     "The path parameter is declared int, and converted before use",
     ["fastapi", "route-param", "fstring", "sqlalchemy-text"], ["cast"],
     {"api.py": r'''
        from fastapi import FastAPI
        from sqlalchemy import create_engine, text

        app = FastAPI()
        engine = create_engine("sqlite:///inventory.db")


        @app.get("/items/{sku}")
        def get_item(sku: str):
            with engine.connect() as conn:
                stmt = text(f"SELECT name, qty FROM items WHERE sku = {sku}")  #@sink
                row = conn.execute(stmt).first()
            return {"name": row[0], "qty": row[1]} if row else {}
     '''},
     [('stmt = text(f"SELECT name, qty FROM items WHERE sku = {sku}")',
       'stmt = text(f"SELECT name, qty FROM items WHERE sku = {int(sku)}")')]),

pair("sql-helper-return", "sql",
     "A helper builds the WHERE clause from a header value and returns it; the caller executes it",
     "The helper allow-lists the sort column before building the clause",
     ["flask", "request.headers", "helper-function", "return-value", "dbapi"], ["allowlist"],
     {"reports.py": r'''
        import sqlite3

        from flask import Flask, request

        app = Flask(__name__)
        SORTABLE = {"created", "amount", "customer"}


        def order_clause(column):
            return " ORDER BY " + column


        @app.get("/reports")
        def reports():
            column = request.headers.get("X-Sort", "created")
            sql = "SELECT * FROM invoices" + order_clause(column)
            conn = sqlite3.connect("billing.db")
            rows = conn.execute(sql).fetchall()  #@sink
            return {"rows": rows}
     '''},
     [('''            column = request.headers.get("X-Sort", "created")
''', '''            column = request.headers.get("X-Sort", "created")
            if column not in SORTABLE:
                column = "created"
''')]),

pair("sql-second-module-helper", "sql",
     "The view passes a cookie to a repository function in another changed module that formats it into SQL",
     "The repository function binds the value as a parameter",
     ["flask", "request.cookies", "cross-module", "helper-function", "dbapi"], ["parameterised"],
     {"app.py": r'''
        from flask import Flask, request

        from repo import load_profile

        app = Flask(__name__)


        @app.get("/profile")
        def profile():
            token = request.cookies.get("session_token", "")
            return load_profile(token) or ({"error": "not found"}, 404)
     ''', "repo.py": r'''
        import sqlite3


        def load_profile(token):
            conn = sqlite3.connect("app.db")
            cur = conn.cursor()
            cur.execute("SELECT name, bio FROM profiles WHERE token = '%s'" % token)  #@sink
            row = cur.fetchone()
            return None if row is None else {"name": row[0], "bio": row[1]}
     '''},
     [('''cur.execute("SELECT name, bio FROM profiles WHERE token = '%s'" % token)''',
       '''cur.execute("SELECT name, bio FROM profiles WHERE token = ?", (token,))''')]),

pair("sql-aiohttp-query-executescript", "sql",
     "aiohttp query value reaches sqlite executescript through string concatenation",
     "The value is replaced by a constant label before the script runs",
     ["aiohttp", "request.query", "concat", "dbapi"], ["overwritten"],
     {"handlers.py": r'''
        import sqlite3

        from aiohttp import web


        async def archive(request: web.Request) -> web.Response:
            label = request.query.get("label", "default")
            script = "BEGIN; INSERT INTO archive SELECT * FROM events WHERE label = '" + label + "'; COMMIT;"
            conn = sqlite3.connect("events.db")
            conn.executescript(script)  #@sink
            return web.json_response({"archived": True})


        app = web.Application()
        app.router.add_get("/archive", archive)
     '''},
     [('''            script = "BEGIN;''', '''            label = "default"
            script = "BEGIN;''')]),

pair("sql-httpserver-path-executemany", "sql",
     "An http.server handler takes a table name from self.path and uses it in executemany",
     "The table name is checked against an allow-list before use",
     ["http.server", "self.path", "slicing", "dbapi"], ["allowlist"],
     {"server.py": r'''
        import sqlite3
        from http.server import BaseHTTPRequestHandler, HTTPServer

        ROWS = [("a", 1), ("b", 2)]
        TABLES = ("metrics", "counters")


        class Loader(BaseHTTPRequestHandler):
            def do_POST(self):
                table = self.path[len("/load/"):]
                conn = sqlite3.connect("stats.db")
                conn.executemany("INSERT INTO " + table + " VALUES (?, ?)", ROWS)  #@sink
                conn.commit()
                self.send_response(204)
                self.end_headers()


        if __name__ == "__main__":
            HTTPServer(("127.0.0.1", 8080), Loader).serve_forever()
     '''},
     [('''                conn = sqlite3.connect("stats.db")
''', '''                if table not in TABLES:
                    self.send_error(400)
                    return
                conn = sqlite3.connect("stats.db")
''')]),

pair("sql-cli-argv", "sql",
     "A maintenance script deletes rows for a customer named on the command line (lower-severity source)",
     "The script binds the argument as a parameter",
     ["cli", "sys.argv", "fstring", "dbapi", "low-severity-source"], ["parameterised"],
     {"purge.py": r'''
        import sqlite3
        import sys


        def main():
            customer = sys.argv[1]
            conn = sqlite3.connect("crm.db")
            conn.execute(f"DELETE FROM notes WHERE customer = '{customer}'")  #@sink
            conn.commit()
            print("purged notes for", customer)


        if __name__ == "__main__":
            main()
     '''},
     [('''conn.execute(f"DELETE FROM notes WHERE customer = '{customer}'")''',
       '''conn.execute("DELETE FROM notes WHERE customer = ?", (customer,))''')]),

pair("sql-exec-driver-sql-json", "sql",
     "A JSON body field reaches SQLAlchemy exec_driver_sql via a dict with constant keys",
     "The filter value is converted with int() before it is stored in the dict",
     ["flask", "request.get_json", "dict-constant-key", "sqlalchemy-exec-driver-sql"], ["cast"],
     {"service.py": r'''
        from flask import Flask, request
        from sqlalchemy import create_engine

        app = Flask(__name__)
        engine = create_engine("postgresql:///fleet")


        @app.post("/vehicles/search")
        def search():
            body = request.get_json()
            filters = {"limit": 50}
            filters["year"] = body["year"]
            sql = "SELECT plate FROM vehicles WHERE year = %s LIMIT %s" % (filters["year"], filters["limit"])
            with engine.connect() as conn:
                plates = [r[0] for r in conn.exec_driver_sql(sql)]  #@sink
            return {"plates": plates}
     '''},
     [('filters["year"] = body["year"]', 'filters["year"] = int(body["year"])')]),

pair("sql-django-rawsql-kwargs", "sql",
     "A Django URL kwarg is put into a RawSQL annotation",
     "The RawSQL expression takes the kwarg as a parameter",
     ["django", "url-kwarg", "concat", "django-rawsql"], ["parameterised"],
     {"views.py": r'''
        from django.db.models.expressions import RawSQL
        from django.http import JsonResponse

        from .models import Product


        def discounted(request, region):
            expr = RawSQL("SELECT rate FROM discounts WHERE region = '" + region + "'", [])  #@sink
            products = Product.objects.annotate(rate=expr)
            return JsonResponse({"products": [p.name for p in products]})
     '''},
     [('''expr = RawSQL("SELECT rate FROM discounts WHERE region = '" + region + "'", [])''',
       '''expr = RawSQL("SELECT rate FROM discounts WHERE region = %s", [region])''')]),

pair("sql-flask-py312-nested-quotes", "sql",
     "A Python 3.12 f-string with nested same-kind quotes reads request.args inside the query text",
     "The same 3.12 f-string only interpolates a constant table name; the value is bound",
     ["flask", "request.args", "fstring", "py312", "pep701", "dbapi"], ["parameterised"],
     {"app.py": r'''
        import sqlite3

        from flask import Flask, request

        app = Flask(__name__)
        CONFIG = {"table": "audit_log"}


        @app.get("/audit")
        def audit():
            cur = sqlite3.connect("audit.db").cursor()
            cur.execute(f"SELECT * FROM {CONFIG["table"]} WHERE actor = '{request.args["actor"]}'")  #@sink
            return {"events": cur.fetchall()}
     '''},
     [('''WHERE actor = '{request.args["actor"]}'")''',
       '''WHERE actor = ?", (request.args["actor"],))''')]),

pair("sql-removed-allowlist", "sql",
     "The pull request removes the allow-list check on the ORDER BY direction",
     "The pull request only renames the handler and keeps the allow-list check",
     ["flask", "request.values", "concat", "dbapi"], ["allowlist"],
     {"listing.py": r'''
        import sqlite3

        from flask import Flask, abort, request

        app = Flask(__name__)
        DIRECTIONS = ("ASC", "DESC")


        @app.get("/listing")
        def listing_page():
            direction = request.values.get("dir", "ASC")
            conn = sqlite3.connect("shop.db")
            rows = conn.execute("SELECT * FROM products ORDER BY price " + direction)  #@sink
            return {"rows": rows.fetchall()}
     '''},
     [('''            conn = sqlite3.connect("shop.db")
''', '''            if direction not in DIRECTIONS:
                abort(400)
            conn = sqlite3.connect("shop.db")
''')],
     base=[("def listing_page():", "def listing():")]),
]
