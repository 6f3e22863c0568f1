# Authoring spec: `pair` is provided by build.py when it loads this module.

PAIRS = [
pair("trust-flask-session-role", "trust-boundary",
     "A Flask view stores the role query parameter in the session, which later code trusts",
     "Only a role from the self-service list is stored",
     ["flask", "request.args", "session"], ["allowlist"],
     {"roles.py": r'''
        from flask import Flask, abort, request, session

        app = Flask(__name__)
        app.secret_key = "dev-only"
        SELF_SERVICE = ("viewer", "commenter")


        @app.post("/role")
        def choose_role():
            role = request.args.get("role", "viewer")
            session["role"] = role  #@sink
            return {"role": role}
     '''},
     [('''            session["role"] = role''', '''            if role not in SELF_SERVICE:
                abort(403)
            session["role"] = role''')]),

pair("trust-django-session-owner", "trust-boundary",
     "A Django view stores a POSTed account id in the session as the cart owner",
     "The session gets the authenticated user's id; the POSTed id is only compared",
     ["django", "request.POST", "session"], ["overwritten"],
     {"cart.py": r'''
        from django.http import JsonResponse


        def claim_cart(request):
            owner = request.POST.get("owner_id", "")
            matches = owner == str(request.user.pk)
            request.session["cart_owner"] = owner  #@sink
            return JsonResponse({"claimed": matches})
     '''},
     [('''            request.session["cart_owner"] = owner''', '''            owner = str(request.user.pk)
            request.session["cart_owner"] = owner''')]),

pair("trust-flask-header-tenant", "trust-boundary",
     "A Flask before_request hook copies the X-Tenant header into the session in multi-tenant mode",
     "Multi-tenant mode is off by a constant, so the header is never stored",
     ["flask", "request.headers", "constant-folding", "session"], ["dead-branch"],
     {"tenancy.py": r'''
        from flask import Flask, request, session

        app = Flask(__name__)
        app.secret_key = "dev-only"
        MULTI_TENANT = True


        @app.before_request
        def bind_tenant():
            tenant = "default"
            if MULTI_TENANT:
                tenant = request.headers.get("X-Tenant", "default")
            session["tenant"] = tenant  #@sink
     '''},
     [("MULTI_TENANT = True", "MULTI_TENANT = False")]),

pair("trust-removed-allowlist", "trust-boundary",
     "The pull request removes the allow-list check before a form value is stored in the Flask session",
     "The pull request changes the default plan and keeps the check",
     ["flask", "request.form", "session"], ["allowlist"],
     {"plans.py": r'''
        from flask import Flask, abort, request, session

        app = Flask(__name__)
        app.secret_key = "dev-only"
        PLANS = ("free", "team")
        DEFAULT_PLAN = "team"


        @app.post("/plan")
        def choose_plan():
            plan = request.form.get("plan", DEFAULT_PLAN)
            session["plan"] = plan  #@sink
            return {"plan": plan}
     '''},
     [('''            session["plan"] = plan''', '''            if plan not in PLANS:
                abort(400)
            session["plan"] = plan''')],
     base=[('DEFAULT_PLAN = "team"', 'DEFAULT_PLAN = "free"')]),

pair("trust-starlette-session-constant", "trust-boundary",
     "A Starlette handler stores the uid query parameter in request.session",
     "The stored uid is a constant guest id",
     ["starlette", "request.query_params", "session"], ["constant"],
     {"guest.py": r'''
        from starlette.requests import Request
        from starlette.responses import JSONResponse


        async def start(request: Request) -> JSONResponse:
            uid = request.query_params.get("uid", "guest")
            request.session["uid"] = uid  #@sink
            return JSONResponse({"uid": uid})
     '''},
     [('''            request.session["uid"] = uid''', '''            request.session["uid"] = "guest"''')]),

pair("trust-py312-session-helper", "trust-boundary",
     "A Python 3.12 typed helper (def f[T]) stores a JSON body field in the Flask session",
     "The helper stores the field only when it is one of the known locales",
     ["flask", "request.get_json", "py312", "type-params", "helper-function", "session"], ["allowlist"],
     {"locale.py": r'''
        from flask import Flask, request, session

        app = Flask(__name__)
        app.secret_key = "dev-only"
        LOCALES = ("en", "nl", "de")


        def remember[T](key: str, value: T) -> T:
            session[key] = value  #@sink
            return value


        @app.post("/locale")
        def set_locale():
            wanted = request.get_json()["locale"]
            return {"locale": remember("locale", wanted)}
     '''},
     [('''            return {"locale": remember("locale", wanted)}''', '''            if wanted not in LOCALES:
                wanted = "en"
            return {"locale": remember("locale", wanted)}''')]),
]
