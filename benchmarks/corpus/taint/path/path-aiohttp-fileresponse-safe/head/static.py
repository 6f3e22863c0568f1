import os

from aiohttp import web

STATIC = "/srv/static"


async def asset(request: web.Request) -> web.StreamResponse:
    name = request.match_info["name"]
    path = os.path.realpath(os.path.join(STATIC, name))
    if os.path.commonpath([STATIC, path]) != STATIC:
        raise web.HTTPNotFound()
    return web.FileResponse(path)


app = web.Application()
app.router.add_get("/assets/{name:.+}", asset)
