import html

from aiohttp import web


async def profile(request: web.Request) -> web.Response:
    user = request.match_info["user"]
    body = "<h1>{}</h1><p>Profile</p>".format(html.escape(user))
    return web.Response(text=body, content_type="text/html")
