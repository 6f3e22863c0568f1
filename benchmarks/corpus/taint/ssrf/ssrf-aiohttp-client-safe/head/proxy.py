import aiohttp
from aiohttp import web

MIRRORS = ("https://mirror-a.example.org/", "https://mirror-b.example.org/")


async def fetch(request: web.Request) -> web.Response:
    upstream = request.query.get("upstream", MIRRORS[0])
    if upstream not in MIRRORS:
        raise web.HTTPBadRequest()
    async with aiohttp.ClientSession() as client:
        async with client.get(upstream) as reply:
            body = await reply.read()
    return web.Response(body=body)
