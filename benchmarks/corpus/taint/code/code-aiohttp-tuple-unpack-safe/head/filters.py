from aiohttp import web


async def filter_scores(request: web.Request) -> web.Response:
    data = await request.post()
    field, op = "score", ">="
    rows = [{"score": 10}, {"score": 55}, {"score": 90}]
    kept = [r for r in rows if eval(f"r['{field}'] {op} 50")]
    return web.json_response(kept)
