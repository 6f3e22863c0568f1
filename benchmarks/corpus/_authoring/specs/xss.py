# Authoring spec: `pair` is provided by build.py when it loads this module.

PAIRS = [
pair("xss-flask-return-fstring", "xss",
     "A Flask view returns HTML built with an f-string from a query parameter",
     "The name is escaped with html.escape before it is formatted",
     ["flask", "request.args", "fstring", "response-body"], ["html-escape"],
     {"greet.py": r'''
        import html

        from flask import Flask, request

        app = Flask(__name__)


        @app.get("/hello")
        def hello():
            name = request.args.get("name", "stranger")
            shown = name
            return f"<h1>Hello, {shown}!</h1>"  #@sink
     '''},
     [("shown = name", "shown = html.escape(name)")]),

pair("xss-flask-render-template-string", "xss",
     "A form title is concatenated into the template source given to render_template_string",
     "The title is passed as a template variable and auto-escaped by Jinja",
     ["flask", "request.form", "concat", "render_template_string"], ["parameterised"],
     {"notes.py": r'''
        from flask import Flask, render_template_string, request

        app = Flask(__name__)


        @app.post("/preview")
        def preview():
            title = request.form["title"]
            return render_template_string("<h2>" + title + "</h2><p>Preview</p>")  #@sink
     '''},
     [('return render_template_string("<h2>" + title + "</h2><p>Preview</p>")',
       'return render_template_string("<h2>{{ title }}</h2><p>Preview</p>", title=title)')]),

pair("xss-markup-comment", "xss",
     "A comment from a JSON body is wrapped in markupsafe.Markup, marking it safe HTML",
     "The comment is escaped with markupsafe.escape inside the Markup",
     ["flask", "request.json", "fstring", "markup"], ["html-escape"],
     {"comments.py": r'''
        from flask import Flask, request
        from markupsafe import Markup, escape

        app = Flask(__name__)


        def render_comment(text):
            return Markup(f"<div class='comment'>{text}</div>")  #@sink


        @app.post("/comments/preview")
        def comment_preview():
            body = request.json["comment"]
            return str(render_comment(body))
     '''},
     [("""return Markup(f"<div class='comment'>{text}</div>")""",
       """return Markup(f"<div class='comment'>{escape(text)}</div>")""")]),

pair("xss-django-httpresponse-concat", "xss",
     "A Django search page echoes the GET query into an HttpResponse",
     "The query is escaped with html.escape",
     ["django", "request.GET", "concat", "httpresponse"], ["html-escape"],
     {"views.py": r'''
        import html

        from django.http import HttpResponse


        def search(request):
            query = request.GET.get("q", "")
            heading = "<h1>Results for " + query + "</h1>"
            return HttpResponse(heading + "<ul></ul>")  #@sink
     '''},
     [('heading = "<h1>Results for " + query + "</h1>"',
       'heading = "<h1>Results for " + html.escape(query) + "</h1>"')]),

pair("xss-django-meta-referer", "xss",
     "A Django error page shows the Referer header through % formatting",
     "The back link is overwritten with a constant before the page is built",
     ["django", "request.META", "percent-format", "httpresponse"], ["overwritten"],
     {"errors.py": r'''
        from django.http import HttpResponseNotFound


        def not_found(request, exception=None):
            back = request.META.get("HTTP_REFERER", "/")
            page = "<p>Page not found. <a href='%s'>Go back</a></p>" % back
            return HttpResponseNotFound(page)  #@sink
     '''},
     [('''            page = "<p>''', '''            back = "/"
            page = "<p>''')]),

pair("xss-fastapi-htmlresponse", "xss",
     "A FastAPI page number is placed into an HTMLResponse",
     "The page number is declared and converted as int",
     ["fastapi", "route-param", "fstring", "htmlresponse"], ["cast"],
     {"pages.py": r'''
        from fastapi import FastAPI
        from fastapi.responses import HTMLResponse

        app = FastAPI()


        @app.get("/list", response_class=HTMLResponse)
        def listing(page: str = "1"):
            current = page
            html = f"<nav>Page {current}</nav><table></table>"
            return HTMLResponse(content=html)  #@sink
     '''},
     [("current = page", "current = int(page)")]),

pair("xss-aiohttp-text-html", "xss",
     "aiohttp path segment is rendered into a text/html response",
     "The segment is escaped with html.escape",
     ["aiohttp", "match_info", "str.format", "response-body"], ["html-escape"],
     {"profile.py": r'''
        import html

        from aiohttp import web


        async def profile(request: web.Request) -> web.Response:
            user = request.match_info["user"]
            body = "<h1>{}</h1><p>Profile</p>".format(user)
            return web.Response(text=body, content_type="text/html")  #@sink
     '''},
     [('.format(user)', '.format(html.escape(user))')]),

pair("xss-httpserver-wfile", "xss",
     "An http.server handler writes a query parameter into its HTML response body",
     "The parameter is escaped with html.escape",
     ["http.server", "self.path", "fstring", "wfile"], ["html-escape"],
     {"echo.py": r'''
        import html
        from http.server import BaseHTTPRequestHandler, HTTPServer
        from urllib.parse import parse_qs, urlparse


        class Echo(BaseHTTPRequestHandler):
            def do_GET(self):
                params = parse_qs(urlparse(self.path).query)
                word = params.get("word", [""])[0]
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(f"<p>You said {word}</p>".encode())  #@sink


        if __name__ == "__main__":
            HTTPServer(("127.0.0.1", 8002), Echo).serve_forever()
     '''},
     [('word = params.get("word", [""])[0]', 'word = html.escape(params.get("word", [""])[0])')]),

pair("xss-comprehension-join", "xss",
     "Tags from request.args.getlist are turned into list items by a comprehension and joined into the response",
     "Each tag is escaped inside the comprehension",
     ["flask", "request.args", "comprehension", "join", "make_response"], ["html-escape"],
     {"tags.py": r'''
        from flask import Flask, make_response, request
        from markupsafe import escape

        app = Flask(__name__)


        @app.get("/tags")
        def tags():
            chosen = request.args.getlist("tag")
            items = [f"<li>{t}</li>" for t in chosen]
            page = "<ul>" + "".join(items) + "</ul>"
            return make_response(page)  #@sink
     '''},
     [('items = [f"<li>{t}</li>" for t in chosen]', 'items = [f"<li>{escape(t)}</li>" for t in chosen]')]),

pair("xss-py312-nested-fstring", "xss",
     "A Python 3.12 f-string reads request.args with nested double quotes inside the returned HTML",
     "The same 3.12 f-string escapes the value",
     ["flask", "request.args", "py312", "pep701", "response-body"], ["html-escape"],
     {"search.py": r'''
        from flask import Flask, request
        from markupsafe import escape

        app = Flask(__name__)


        @app.get("/find")
        def find():
            return f"<p>No results for {request.args.get("q", "")}</p>"  #@sink
     '''},
     [('{request.args.get("q", "")}', '{escape(request.args.get("q", ""))}')]),

pair("xss-removed-escape", "xss",
     "The pull request removes html.escape from a data attribute built from a form value",
     "The pull request changes the CSS class and keeps html.escape",
     ["flask", "request.form", "concat", "response-body"], ["html-escape"],
     {"widgets.py": r'''
        import html

        from flask import Flask, request

        app = Flask(__name__)


        @app.post("/widget")
        def widget():
            label = request.form.get("label", "")
            safe_label = label
            return "<span class='badge'>" + safe_label + "</span>"  #@sink
     '''},
     [("safe_label = label", "safe_label = html.escape(label)")],
     base=[("class='badge'", "class='tag'")]),

pair("xss-dead-branch-preview", "xss",
     "With the preview flag on, raw HTML from the form is returned",
     "The preview flag is off, so the raw HTML branch cannot run",
     ["flask", "request.form", "constant-folding", "response-body"], ["dead-branch"],
     {"editor.py": r'''
        from flask import Flask, request

        app = Flask(__name__)
        RAW_PREVIEW = 1


        @app.post("/editor/preview")
        def editor_preview():
            body = "<p>Preview unavailable</p>"
            if RAW_PREVIEW > 0:
                body = request.form["html"]
            return body  #@sink
     '''},
     [("RAW_PREVIEW = 1", "RAW_PREVIEW = 0")]),
]
