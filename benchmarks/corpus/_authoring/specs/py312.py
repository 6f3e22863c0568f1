# Authoring spec: `pair` is provided by build.py when it loads this module.
# More Python 3.12-only programs: a parser tied to an older interpreter's ast cannot read them.

PAIRS = [
pair("sql-py312-generic-repository", "sql",
     "A Python 3.12 generic repository class (class R[T]) formats a query-string filter into SQL",
     "The sort column must be one of the sortable columns before it reaches the repository",
     ["flask", "request.args", "py312", "type-params", "self-field", "fstring", "dbapi"], ["allowlist"],
     {"repository.py": r'''
        import sqlite3

        from flask import Flask, abort, request

        app = Flask(__name__)
        SORTABLE = ("name", "created", "size")


        class Repository[T]:
            def __init__(self, table: str) -> None:
                self.table = table
                self.conn = sqlite3.connect("files.db")

            def all_sorted(self, column: str) -> list[T]:
                return self.conn.execute(f"SELECT * FROM {self.table} ORDER BY {column}").fetchall()  #@sink


        @app.get("/files")
        def files():
            column = request.args.get("sort", "name")
            return {"files": Repository[tuple]("files").all_sorted(column)}
     '''},
     [('''            return {"files": Repository[tuple]("files").all_sorted(column)}''', '''            if column not in SORTABLE:
                abort(400)
            return {"files": Repository[tuple]("files").all_sorted(column)}''')]),

pair("command-py312-env-type-alias", "command",
     "A Python 3.12 deploy script (type alias) passes an environment variable to os.system (lower-severity source)",
     "The variable is quoted with shlex.quote",
     ["cli", "os.environ", "py312", "type-alias", "os.system", "low-severity-source"], ["shlex-quote"],
     {"deploy_tool.py": r'''
        import os
        import shlex

        type Command = str


        def build_command(release: str) -> Command:
            return "helm upgrade app ./chart --set image.tag=" + release


        def main() -> None:
            release = os.environ["RELEASE_TAG"]
            os.system(build_command(release))  #@sink


        if __name__ == "__main__":
            main()
     '''},
     [('release = os.environ["RELEASE_TAG"]', 'release = shlex.quote(os.environ["RELEASE_TAG"])')]),

pair("path-py312-nested-fstring-open", "path",
     "A Python 3.12 f-string with nested quotes puts request.values into an open() path",
     "The same 3.12 f-string passes the value through secure_filename",
     ["flask", "request.values", "py312", "pep701", "open"], ["secure-filename"],
     {"snippets.py": r'''
        from flask import Flask, request
        from werkzeug.utils import secure_filename

        app = Flask(__name__)
        SNIPPETS = "/srv/snippets"


        @app.get("/snippet")
        def snippet():
            with open(f"{SNIPPETS}/{request.values["name"]}.txt", encoding="utf-8") as fh:  #@sink
                return fh.read()
     '''},
     [('{request.values["name"]}', '{secure_filename(request.values["name"])}')]),
]
