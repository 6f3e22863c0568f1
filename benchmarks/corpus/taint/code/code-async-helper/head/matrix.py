import ast

from aiohttp import web


async def parse_matrix(text):
    return eval(text)


async def determinant(request: web.Request) -> web.Response:
    form = await request.post()
    m = await parse_matrix(form["matrix"])
    return web.json_response({"det": m[0][0] * m[1][1] - m[0][1] * m[1][0]})
