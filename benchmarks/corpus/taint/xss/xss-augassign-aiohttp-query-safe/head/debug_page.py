import html

from aiohttp import web


async def whoami(request: web.Request) -> web.Response:
    agent = request.query.get("ref", "")
    page = "<html><body><ul>"
    page += "<li>Referred by: " + html.escape(agent) + "</li>"
    page += "</ul></body></html>"
    return web.Response(text=page, content_type="text/html")
