import html

from starlette.requests import Request
from starlette.responses import HTMLResponse


async def team(request: Request) -> HTMLResponse:
    slug = request.path_params["slug"]
    page = "<html><body><h1>Team %s</h1></body></html>" % html.escape(slug)
    return HTMLResponse(page)
