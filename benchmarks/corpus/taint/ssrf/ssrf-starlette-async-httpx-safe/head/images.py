import httpx
from starlette.requests import Request
from starlette.responses import Response

PROXY_ENABLED = False
PLACEHOLDER = b"GIF89a"


async def image(request: Request) -> Response:
    src = request.query_params.get("src", "")
    data = PLACEHOLDER
    if PROXY_ENABLED:
        async with httpx.AsyncClient() as client:
            data = (await client.get(src)).content
    return Response(data, media_type="image/gif")
