from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from storage import read_document

PUBLISHED = ("terms.txt", "privacy.txt", "changelog.txt")


async def document(request: Request) -> PlainTextResponse:
    doc = request.path_params["doc"]
    if doc not in PUBLISHED:
        return PlainTextResponse("not found", status_code=404)
    return PlainTextResponse(read_document(doc))


app = Starlette(routes=[Route("/docs/{doc:path}", document)])
