from aiohttp import web
from lxml import etree

PARSER = etree.XMLParser(resolve_entities=False, huge_tree=True)


async def import_xml(request: web.Request) -> web.Response:
    data = await request.read()
    root = etree.fromstring(data, PARSER)
    return web.json_response({"records": len(root)})
