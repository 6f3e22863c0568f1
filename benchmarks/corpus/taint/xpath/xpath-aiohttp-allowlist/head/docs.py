from aiohttp import web
from lxml import etree

DOC = etree.parse("/srv/manual.xml")
SECTIONS = ("install", "configure", "upgrade")


async def section(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    expr = "//section[@id='%s']//para/text()" % name
    paras = DOC.xpath(expr)
    return web.json_response({"paras": [str(p) for p in paras]})
