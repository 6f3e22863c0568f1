import html

from aiohttp import web


async def whoami(request: web.Request) -> web.Response:
    agent = request.headers.get("User-Agent", "")
    page = "<html><body><ul>"
    page += "<li>Agent: " + html.escape(agent) + "</li>"
    page += "</ul></body></html>"
    return web.Response(text=page, content_type="text/html")
