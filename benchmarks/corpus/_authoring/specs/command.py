# Authoring spec: `pair` is provided by build.py when it loads this module.

PAIRS = [
pair("command-flask-ping-system", "command",
     "Flask query host is formatted into os.system",
     "The host is quoted with shlex.quote before it reaches the shell",
     ["flask", "request.args", "fstring", "os.system"], ["shlex-quote"],
     {"netcheck.py": r'''
        import os
        import shlex

        from flask import Flask, request

        app = Flask(__name__)


        @app.get("/ping")
        def ping():
            host = request.args.get("host", "localhost")
            target = host
            status = os.system(f"ping -c 1 -W 2 {target}")  #@sink
            return {"reachable": status == 0}
     '''},
     [("target = host", "target = shlex.quote(host)")]),

pair("command-django-popen-archive", "command",
     "A Django POST field becomes part of a tar command run with os.popen",
     "The archive name is checked against the known archives before the command runs",
     ["django", "request.POST", "percent-format", "os.popen"], ["allowlist"],
     {"views.py": r'''
        import os

        from django.http import HttpResponse, HttpResponseBadRequest

        KNOWN = {"daily", "weekly", "monthly"}


        def list_archive(request):
            name = request.POST.get("archive", "daily")
            cmd = "tar -tzf /srv/backups/%s.tar.gz" % name
            listing = os.popen(cmd).read()  #@sink
            return HttpResponse(listing, content_type="text/plain")
     '''},
     [('''            cmd = "tar -tzf''', '''            if name not in KNOWN:
                return HttpResponseBadRequest("unknown archive")
            cmd = "tar -tzf''')]),

pair("command-subprocess-shell-helper", "command",
     "A helper wraps subprocess.run(shell=True) and is called with a JSON field",
     "The caller converts the port to int before calling the helper",
     ["flask", "request.json", "helper-function", "subprocess-shell"], ["cast"],
     {"ops.py": r'''
        import subprocess

        from flask import Flask, request

        app = Flask(__name__)


        def run_shell(command):
            done = subprocess.run(command, shell=True, capture_output=True, text=True)  #@sink
            return done.stdout


        @app.post("/firewall/open")
        def open_port():
            port = request.json["port"]
            out = run_shell("ufw allow " + str(port))
            return {"output": out}
     '''},
     [('port = request.json["port"]', 'port = int(request.json["port"])')]),

pair("command-tainted-program", "command",
     "The program to execute is taken from the request (list form, no shell, but the program itself is tainted)",
     "The program is looked up in a fixed table keyed by the request value",
     ["flask", "request.args", "tainted-program", "subprocess-list"], ["allowlist"],
     {"tools.py": r'''
        import subprocess

        from flask import Flask, abort, request

        app = Flask(__name__)
        TOOLS = {"disk": "/usr/bin/df", "uptime": "/usr/bin/uptime"}


        @app.get("/tool")
        def tool():
            program = request.args["tool"]
            output = subprocess.check_output([program, "-h"], timeout=5)  #@sink
            return output.decode()
     '''},
     [('''            program = request.args["tool"]
''', '''            program = request.args["tool"]
            if program not in TOOLS.values():
                abort(404)
''')]),

pair("command-fastapi-augassign", "command",
     "FastAPI query parameter is appended with += to a convert command run through the shell",
     "The width parameter is an int() conversion before it is appended",
     ["fastapi", "route-param", "augmented-assignment", "subprocess-shell"], ["cast"],
     {"thumbs.py": r'''
        import subprocess

        from fastapi import FastAPI

        app = FastAPI()


        @app.get("/thumb")
        def thumb(image: str, width: str = "128"):
            size = width
            cmd = "convert /srv/img/original.png -resize "
            cmd += size
            cmd += " /srv/img/thumb.png"
            subprocess.call(cmd, shell=True)  #@sink
            return {"done": True, "image": image}
     '''},
     [("size = width", "size = str(int(width))")]),

pair("command-aiohttp-matchinfo-popen", "command",
     "aiohttp path segment goes into subprocess.Popen with shell=True via str.format",
     "The segment is quoted with shlex.quote",
     ["aiohttp", "match_info", "str.format", "subprocess-shell"], ["shlex-quote"],
     {"git_view.py": r'''
        import shlex
        import subprocess

        from aiohttp import web


        async def show_branch(request: web.Request) -> web.Response:
            branch = request.match_info["branch"]
            cmd = "git -C /srv/repo log --oneline -n 20 --end-of-options {}".format(branch)
            proc = subprocess.Popen(cmd, shell=True, stdout=subprocess.PIPE)  #@sink
            out, _ = proc.communicate()
            return web.Response(text=out.decode())
     '''},
     [('.format(branch)', '.format(shlex.quote(branch))')]),

pair("command-input-constant", "command",
     "An interactive admin script passes input() to os.system (lower-severity source)",
     "The script uses a constant service name; input() is only echoed",
     ["cli", "input", "concat", "os.system", "low-severity-source"], ["constant"],
     {"restart.py": r'''
        import os


        def restart():
            answer = input("service to restart: ")
            service = answer
            print("restarting", answer)
            os.system("systemctl restart " + service)  #@sink


        if __name__ == "__main__":
            restart()
     '''},
     [("service = answer", 'service = "nginx"')]),

pair("command-dead-branch", "command",
     "The request header reaches os.system when the mode constant selects the legacy path",
     "The mode constant makes the branch that reads the header impossible",
     ["flask", "request.headers", "constant-folding", "os.system"], ["dead-branch"],
     {"deploy.py": r'''
        import os

        from flask import Flask, request

        app = Flask(__name__)
        MODE = "legacy"


        @app.post("/deploy")
        def deploy():
            tag = "stable"
            if MODE == "legacy":
                tag = request.headers.get("X-Release-Tag", "stable")
            os.system("/opt/deploy.sh " + tag)  #@sink
            return {"deployed": True}
     '''},
     [('MODE = "legacy"', 'MODE = "modern"')]),

pair("command-self-field", "command",
     "A class stores a request value in self.target and a later method runs it through the shell",
     "The constructor stores a quoted value",
     ["flask", "request.form", "self-field", "subprocess-shell"], ["shlex-quote"],
     {"jobs.py": r'''
        import shlex
        import subprocess

        from flask import Flask, request

        app = Flask(__name__)


        class Backup:
            def __init__(self, target):
                self.target = target

            def run(self):
                return subprocess.run("rsync -a /data/ " + self.target, shell=True)  #@sink


        @app.post("/backup")
        def backup():
            job = Backup(request.form["dest"])
            job.run()
            return {"started": True}
     '''},
     [("self.target = target", "self.target = shlex.quote(target)")]),

pair("command-httpserver-header", "command",
     "An http.server handler puts a request header into os.system",
     "The header value is replaced by a constant before use",
     ["http.server", "self.headers", "fstring", "os.system"], ["overwritten"],
     {"hook.py": r'''
        import os
        from http.server import BaseHTTPRequestHandler, HTTPServer


        class Hook(BaseHTTPRequestHandler):
            def do_POST(self):
                repo = self.headers.get("X-Repo", "site")
                os.system(f"cd /srv/{repo} && git pull --ff-only")  #@sink
                self.send_response(200)
                self.end_headers()


        if __name__ == "__main__":
            HTTPServer(("127.0.0.1", 9000), Hook).serve_forever()
     '''},
     [('''                repo = self.headers.get("X-Repo", "site")
''', '''                repo = self.headers.get("X-Repo", "site")
                repo = "site"
''')]),

pair("command-py312-typeparams", "command",
     "Python 3.12 generic helper (def f[T]) joins request values into a shell command",
     "The same generic helper quotes every part with shlex.quote",
     ["flask", "request.args", "join", "py312", "type-params", "subprocess-shell"], ["shlex-quote"],
     {"grep_api.py": r'''
        import shlex
        import subprocess

        from flask import Flask, request

        app = Flask(__name__)

        type Args = list[str]


        def join_args[T](parts: list[T]) -> str:
            return " ".join(str(p) for p in parts)


        @app.get("/grep")
        def grep():
            args: Args = ["grep", "-rn", "-e", request.args["pattern"], "/srv/logs"]
            line = join_args(args)
            result = subprocess.run(line, shell=True, capture_output=True)  #@sink
            return result.stdout.decode()
     '''},
     [('return " ".join(str(p) for p in parts)', 'return " ".join(shlex.quote(str(p)) for p in parts)')]),

pair("command-removed-quote", "command",
     "The pull request drops shlex.quote from a filename passed to a shell command",
     "The pull request changes the timeout and keeps shlex.quote",
     ["flask", "request.files", "os.system"], ["shlex-quote"],
     {"scan.py": r'''
        import os
        import shlex

        from flask import Flask, request

        app = Flask(__name__)
        TIMEOUT = 30


        @app.post("/scan")
        def scan():
            upload = request.files["file"]
            name = upload.filename
            upload.save("/tmp/scan/upload.bin")
            code = os.system(f"timeout {TIMEOUT} clamscan /tmp/scan/upload.bin --log=/tmp/scan/{name}.log")  #@sink
            return {"infected": code != 0}
     '''},
     [("name = upload.filename", "name = shlex.quote(upload.filename)")],
     base=[("TIMEOUT = 30", "TIMEOUT = 60")]),
]
