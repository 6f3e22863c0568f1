from aiohttp import web
from ldap3 import Connection, Server
from ldap3.utils.conv import escape_filter_chars

conn = Connection(Server("ldap://ldap.internal"), auto_bind=True)


async def phone(request: web.Request) -> web.Response:
    form = await request.post()
    surname = form["surname"]
    conn.search("ou=people,dc=corp", "(sn=%s)" % surname, attributes=["telephoneNumber"])
    return web.json_response({"numbers": [str(e.telephoneNumber) for e in conn.entries]})
