from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route


async def run_hook(request: Request) -> JSONResponse:
    payload = await request.json()
    hook = payload["hook"]
    scope = {"result": None}
    exec(hook, scope)
    return JSONResponse({"result": scope["result"]})


app = Starlette(routes=[Route("/hook", run_hook, methods=["POST"])])
