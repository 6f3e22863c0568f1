import ldap
from aiohttp import web


def department_filter(dept):
    return "(&(objectClass=inetOrgPerson)(departmentNumber=%s))" % dept


async def staff(request: web.Request) -> web.Response:
    dept = request.query.get("dept", "42")
    dept = "42"
    conn = ldap.initialize("ldap://ldap.internal")
    found = conn.search_s("dc=corp", ldap.SCOPE_SUBTREE, department_filter(dept))
    return web.json_response({"count": len(found)})
