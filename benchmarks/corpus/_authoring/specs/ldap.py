# Authoring spec: `pair` is provided by build.py when it loads this module.

PAIRS = [
pair("ldap-flask-search-s", "ldap",
     "A Flask directory lookup puts the uid query parameter into a python-ldap search filter",
     "The uid is escaped with ldap.filter.escape_filter_chars",
     ["flask", "request.args", "fstring", "python-ldap"], ["ldap-escape"],
     {"directory.py": r'''
        import ldap
        from flask import Flask, request
        from ldap.filter import escape_filter_chars

        app = Flask(__name__)
        BASE_DN = "ou=people,dc=example,dc=com"


        @app.get("/directory")
        def lookup():
            uid = request.args.get("uid", "")
            conn = ldap.initialize("ldap://ldap.example.com")
            conn.simple_bind_s()
            query = f"(uid={uid})"
            results = conn.search_s(BASE_DN, ldap.SCOPE_SUBTREE, query, ["cn", "mail"])  #@sink
            return {"found": len(results)}
     '''},
     [('query = f"(uid={uid})"', 'query = f"(uid={escape_filter_chars(uid)})"')]),

pair("ldap-ldap3-concat-mail", "ldap",
     "A Django view concatenates a POSTed mail address into an ldap3 search filter",
     "The mail address is escaped with ldap3's escape_filter_chars",
     ["django", "request.POST", "concat", "ldap3"], ["ldap-escape"],
     {"accounts.py": r'''
        from django.http import JsonResponse
        from ldap3 import Connection, Server
        from ldap3.utils.conv import escape_filter_chars

        SERVER = Server("ldaps://ldap.example.com")


        def find_account(request):
            mail = request.POST["mail"]
            conn = Connection(SERVER, auto_bind=True)
            flt = "(&(objectClass=person)(mail=" + mail + "))"
            conn.search("dc=example,dc=com", flt, attributes=["cn"])  #@sink
            return JsonResponse({"matches": len(conn.entries)})
     '''},
     [('flt = "(&(objectClass=person)(mail=" + mail + "))"',
       'flt = "(&(objectClass=person)(mail=" + escape_filter_chars(mail) + "))"')]),

pair("ldap-fastapi-group-allowlist", "ldap",
     "A FastAPI group membership check formats the group parameter into an LDAP filter",
     "The group must be one of the known groups",
     ["fastapi", "route-param", "str.format", "ldap3"], ["allowlist"],
     {"groups.py": r'''
        from fastapi import FastAPI, HTTPException
        from ldap3 import Connection, Server

        app = FastAPI()
        GROUPS = ("admins", "developers", "support")
        conn = Connection(Server("ldap://ldap.internal"), auto_bind=True)


        @app.get("/groups/{group}/members")
        def members(group: str):
            search_filter = "(&(objectClass=groupOfNames)(cn={}))".format(group)
            conn.search("ou=groups,dc=corp", search_filter, attributes=["member"])  #@sink
            return {"members": [str(e.member) for e in conn.entries]}
     '''},
     [('''            search_filter = "(&(''', '''            if group not in GROUPS:
                raise HTTPException(status_code=404)
            search_filter = "(&(''')]),

pair("ldap-helper-overwritten", "ldap",
     "A helper builds an LDAP filter from an aiohttp query value and the handler searches with it",
     "The department value is overwritten with a constant before the helper is called",
     ["aiohttp", "request.query", "helper-function", "return-value", "python-ldap"], ["overwritten"],
     {"staff.py": r'''
        import ldap
        from aiohttp import web


        def department_filter(dept):
            return "(&(objectClass=inetOrgPerson)(departmentNumber=%s))" % dept


        async def staff(request: web.Request) -> web.Response:
            dept = request.query.get("dept", "42")
            conn = ldap.initialize("ldap://ldap.internal")
            found = conn.search_s("dc=corp", ldap.SCOPE_SUBTREE, department_filter(dept))  #@sink
            return web.json_response({"count": len(found)})
     '''},
     [('''            conn = ldap.initialize("ldap://ldap.internal")''', '''            dept = "42"
            conn = ldap.initialize("ldap://ldap.internal")''')]),

pair("ldap-removed-escape", "ldap",
     "The pull request removes escape_filter_chars from a login filter built from a form field",
     "The pull request changes the attribute list and keeps the escaping",
     ["flask", "request.form", "fstring", "python-ldap"], ["ldap-escape"],
     {"login.py": r'''
        import ldap
        from flask import Flask, request
        from ldap.filter import escape_filter_chars

        app = Flask(__name__)
        ATTRS = ["dn", "cn", "memberOf"]


        @app.post("/ldap-login")
        def ldap_login():
            user = request.form["username"]
            conn = ldap.initialize("ldap://ldap.example.com")
            entries = conn.search_s("dc=example,dc=com", ldap.SCOPE_SUBTREE, f"(sAMAccountName={user})", ATTRS)  #@sink
            return {"known": bool(entries)}
     '''},
     [('user = request.form["username"]', 'user = escape_filter_chars(request.form["username"])')],
     base=[('ATTRS = ["dn", "cn", "memberOf"]', 'ATTRS = ["dn", "cn"]')]),

pair("ldap-py312-nested-fstring", "ldap",
     "A Python 3.12 f-string with nested quotes puts a header value into an ldap3 filter",
     "The same 3.12 f-string escapes the header value",
     ["flask", "request.headers", "py312", "pep701", "ldap3"], ["ldap-escape"],
     {"sso.py": r'''
        from flask import Flask, request
        from ldap3 import Connection, Server
        from ldap3.utils.conv import escape_filter_chars

        app = Flask(__name__)
        conn = Connection(Server("ldap://ldap.internal"), auto_bind=True)


        @app.get("/sso/whoami")
        def whoami():
            conn.search("dc=corp", f"(userPrincipalName={request.headers.get("X-Remote-User", "")})")  #@sink
            return {"entries": len(conn.entries)}
     '''},
     [('{request.headers.get("X-Remote-User", "")}', '{escape_filter_chars(request.headers.get("X-Remote-User", ""))}')]),
]
