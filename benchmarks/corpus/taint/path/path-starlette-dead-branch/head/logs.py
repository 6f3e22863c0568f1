from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

PER_USER_LOGS = "yes"


async def show_log(request: Request) -> PlainTextResponse:
    name = "service.log"
    if PER_USER_LOGS == "yes":
        name = request.path_params["user"] + ".log"
    with open("/var/log/app/" + name) as fh:
        return PlainTextResponse(fh.read())


app = Starlette(routes=[Route("/logs/{user:path}", show_log)])
