# Authoring spec: `pair` is provided by build.py when it loads this module.

PAIRS = [
pair("redirect-flask-next", "redirect",
     "After login, Flask redirects to the next parameter from the query string",
     "The next target must be one of the known landing pages",
     ["flask", "request.args", "direct", "redirect"], ["allowlist"],
     {"auth.py": r'''
        from flask import Flask, redirect, request

        app = Flask(__name__)
        LANDING = ("/dashboard", "/settings", "/inbox")


        @app.post("/login")
        def login():
            target = request.args.get("next", "/dashboard")
            # credentials checked elsewhere
            return redirect(target)  #@sink
     '''},
     [('''            # credentials checked elsewhere
''', '''            if target not in LANDING:
                target = "/dashboard"
''')]),

pair("redirect-django-httpresponseredirect", "redirect",
     "A Django logout view redirects to the return_to field of the POST body",
     "return_to is overwritten with the site root before redirecting",
     ["django", "request.POST", "httpresponseredirect"], ["overwritten"],
     {"views.py": r'''
        from django.contrib.auth import logout
        from django.http import HttpResponseRedirect


        def logout_view(request):
            logout(request)
            return_to = request.POST.get("return_to", "/")
            return HttpResponseRedirect(return_to)  #@sink
     '''},
     [('''            return HttpResponseRedirect(return_to)''', '''            return_to = "/"
            return HttpResponseRedirect(return_to)''')]),

pair("redirect-location-header", "redirect",
     "A Flask view sets the Location header of a 302 response from a query parameter",
     "The value must be one of the known regional sites",
     ["flask", "request.args", "location-header", "make_response"], ["allowlist"],
     {"region.py": r'''
        from flask import Flask, make_response, request

        app = Flask(__name__)
        REGIONS = {"https://eu.example.com/", "https://us.example.com/"}


        @app.get("/")
        def home():
            site = request.args.get("region_site", "https://eu.example.com/")
            resp = make_response("", 302)
            resp.headers["Location"] = site  #@sink
            return resp
     '''},
     [('''            resp = make_response("", 302)''', '''            if site not in REGIONS:
                site = "https://eu.example.com/"
            resp = make_response("", 302)''')]),

pair("redirect-httpserver-send-header", "redirect",
     "An http.server short-link handler sends a Location header from the query string",
     "Open forwarding is switched off by a constant, so the query value is never used",
     ["http.server", "self.path", "constant-folding", "location-header"], ["dead-branch"],
     {"shortlinks.py": r'''
        from http.server import BaseHTTPRequestHandler, HTTPServer
        from urllib.parse import parse_qs, urlparse

        OPEN_FORWARD = True


        class Short(BaseHTTPRequestHandler):
            def do_GET(self):
                dest = "https://example.com/"
                if OPEN_FORWARD:
                    dest = parse_qs(urlparse(self.path).query).get("to", [dest])[0]
                self.send_response(302)
                self.send_header("Location", dest)  #@sink
                self.end_headers()


        if __name__ == "__main__":
            HTTPServer(("127.0.0.1", 8004), Short).serve_forever()
     '''},
     [("OPEN_FORWARD = True", "OPEN_FORWARD = False")]),

pair("redirect-fastapi-redirectresponse", "redirect",
     "A FastAPI OAuth callback redirects to the state parameter",
     "The state must name one of the allowed post-login pages",
     ["fastapi", "route-param", "redirectresponse"], ["allowlist"],
     {"oauth.py": r'''
        from fastapi import FastAPI, HTTPException
        from fastapi.responses import RedirectResponse

        app = FastAPI()
        AFTER_LOGIN = ("/app", "/app/billing", "/app/team")


        @app.get("/oauth/callback")
        def callback(code: str, state: str = "/app"):
            # exchange of `code` for a token happens in the session middleware
            return RedirectResponse(url=state, status_code=303)  #@sink
     '''},
     [('''            # exchange of `code` for a token happens in the session middleware
''', '''            if state not in AFTER_LOGIN:
                raise HTTPException(status_code=400, detail="bad state")
''')]),

pair("redirect-removed-allowlist", "redirect",
     "The pull request removes the allow-list check on a Django next parameter",
     "The pull request changes the default and keeps the allow-list check",
     ["django", "request.GET", "redirect"], ["allowlist"],
     {"views.py": r'''
        from django.shortcuts import redirect

        SAFE_NEXT = ("/orders/", "/profile/", "/help/")
        DEFAULT_NEXT = "/orders/"


        def after_signup(request):
            nxt = request.GET.get("next", DEFAULT_NEXT)
            return redirect(nxt)  #@sink
     '''},
     [('''            return redirect(nxt)''', '''            if nxt not in SAFE_NEXT:
                nxt = DEFAULT_NEXT
            return redirect(nxt)''')],
     base=[('DEFAULT_NEXT = "/orders/"', 'DEFAULT_NEXT = "/profile/"')]),

pair("redirect-py312-fstring-host", "redirect",
     "A Python 3.12 f-string with nested quotes builds the redirect target from request.args",
     "The same 3.12 f-string only uses a constant mapping key",
     ["flask", "request.args", "py312", "pep701", "redirect"], ["constant"],
     {"lang.py": r'''
        from flask import Flask, redirect, request

        app = Flask(__name__)
        SITES = {"default": "https://www.example.com"}


        @app.get("/switch")
        def switch():
            return redirect(f"{request.args.get("site", SITES["default"])}/home")  #@sink
     '''},
     [('request.args.get("site", SITES["default"])', 'SITES["default"]')]),
]
