# Authoring spec: `pair` is provided by build.py when it loads this module.

PAIRS = [
pair("xpath-lxml-fstring", "xpath",
     "A Flask query value is formatted into an lxml XPath expression",
     "The value is passed as an XPath variable ($name)",
     ["flask", "request.args", "fstring", "lxml-xpath"], ["parameterised"],
     {"users.py": r'''
        from flask import Flask, request
        from lxml import etree

        app = Flask(__name__)
        TREE = etree.parse("users.xml")


        @app.get("/users/email")
        def email():
            name = request.args.get("name", "")
            found = TREE.xpath(f"//user[@name='{name}']/email/text()")  #@sink
            return {"email": found[0] if found else None}
     '''},
     [("""found = TREE.xpath(f"//user[@name='{name}']/email/text()")""",
       """found = TREE.xpath("//user[@name=$name]/email/text()", name=name)""")]),

pair("xpath-etree-xpath-concat", "xpath",
     "A Django GET value is concatenated into an lxml etree.XPath object",
     "The value is bound as an XPath variable when the compiled expression is called",
     ["django", "request.GET", "concat", "lxml-xpath"], ["parameterised"],
     {"catalog.py": r'''
        from django.http import JsonResponse
        from lxml import etree

        CATALOG = etree.parse("/srv/catalog.xml")


        def by_author(request):
            author = request.GET.get("author", "")
            find = etree.XPath("//book[author='" + author + "']/title/text()")  #@sink
            titles = find(CATALOG)  #@sink
            return JsonResponse({"titles": list(titles)})
     '''},
     [('''            find = etree.XPath("//book[author='" + author + "']/title/text()")  #@sink
            titles = find(CATALOG)''', '''            find = etree.XPath("//book[author=$author]/title/text()")
            titles = find(CATALOG, author=author)''')]),

pair("xpath-elementtree-findall-cast", "xpath",
     "A FastAPI path parameter is placed into an ElementTree findall path",
     "The SKU is converted with int() before it is placed in the path",
     ["fastapi", "route-param", "fstring", "elementtree-findall"], ["cast"],
     {"stock.py": r'''
        import xml.etree.ElementTree as ET

        from fastapi import FastAPI

        app = FastAPI()
        ROOT = ET.parse("stock.xml").getroot()


        @app.get("/stock/{sku}")
        def stock(sku: str):
            code = sku
            items = ROOT.findall(f".//item[@sku='{code}']")  #@sink
            return {"count": sum(int(i.get("qty", "0")) for i in items)}
     '''},
     [("code = sku", "code = int(sku)")]),

pair("xpath-aiohttp-allowlist", "xpath",
     "An aiohttp handler builds an XPath from a match_info section name",
     "The section name must be one of the known sections",
     ["aiohttp", "match_info", "percent-format", "lxml-xpath"], ["allowlist"],
     {"docs.py": r'''
        from aiohttp import web
        from lxml import etree

        DOC = etree.parse("/srv/manual.xml")
        SECTIONS = ("install", "configure", "upgrade")


        async def section(request: web.Request) -> web.Response:
            name = request.match_info["name"]
            expr = "//section[@id='%s']//para/text()" % name
            paras = DOC.xpath(expr)  #@sink
            return web.json_response({"paras": [str(p) for p in paras]})
     '''},
     [('''            expr = "//section''', '''            if name not in SECTIONS:
                raise web.HTTPNotFound()
            expr = "//section''')]),

pair("xpath-removed-allowlist", "xpath",
     "The pull request removes the allow-list check on a role used in an XPath query",
     "The pull request changes the data file and keeps the allow-list check",
     ["flask", "request.values", "concat", "lxml-xpath"], ["allowlist"],
     {"roles.py": r'''
        from flask import Flask, abort, request
        from lxml import etree

        app = Flask(__name__)
        ACL = etree.parse("acl-v2.xml")
        ROLES = ("viewer", "editor", "owner")


        @app.get("/acl")
        def acl():
            role = request.values.get("role", "viewer")
            perms = ACL.xpath("//role[@name='" + role + "']/permission/@name")  #@sink
            return {"permissions": [str(p) for p in perms]}
     '''},
     [('''            perms = ACL.xpath(''', '''            if role not in ROLES:
                abort(400)
            perms = ACL.xpath(''')],
     base=[('ACL = etree.parse("acl-v2.xml")', 'ACL = etree.parse("acl.xml")')]),

pair("xpath-py312-type-alias", "xpath",
     "A Python 3.12 module with a type alias queries XML with a cookie value in the XPath",
     "The cookie value is passed as an XPath variable",
     ["flask", "request.cookies", "py312", "type-alias", "helper-function", "lxml-xpath"], ["parameterised"],
     {"prefs_xml.py": r'''
        from flask import Flask, request
        from lxml import etree

        app = Flask(__name__)
        PREFS = etree.parse("prefs.xml")

        type Values = list[str]


        def pref_values(key: str) -> Values:
            return [str(v) for v in PREFS.xpath("//pref[@key='" + key + "']/@value")]  #@sink


        @app.get("/prefs")
        def prefs():
            return {"values": pref_values(request.cookies.get("pref_key", "theme"))}
     '''},
     [("""PREFS.xpath("//pref[@key='" + key + "']/@value")""", """PREFS.xpath("//pref[@key=$key]/@value", key=key)""")]),
]
