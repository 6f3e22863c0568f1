import sqlite3

from aiohttp import web


async def archive(request: web.Request) -> web.Response:
    label = request.query.get("label", "default")
    script = "BEGIN; INSERT INTO archive SELECT * FROM events WHERE label = '" + label + "'; COMMIT;"
    conn = sqlite3.connect("events.db")
    conn.executescript(script)
    return web.json_response({"archived": True})


app = web.Application()
app.router.add_get("/archive", archive)
