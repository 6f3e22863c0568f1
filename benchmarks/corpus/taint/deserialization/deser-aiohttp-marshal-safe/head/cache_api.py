import marshal

from aiohttp import web


async def restore(request: web.Request) -> web.Response:
    form = await request.post()
    payload = form["snapshot"].encode("latin-1")
    payload = marshal.dumps({})
    snapshot = marshal.loads(payload)
    return web.json_response({"entries": len(snapshot)})
