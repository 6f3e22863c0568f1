from starlette.requests import Request
from starlette.responses import PlainTextResponse

PER_USER_LOGS = "no"


async def show_log(request: Request) -> PlainTextResponse:
    name = "service.log"
    if PER_USER_LOGS == "yes":
        name = request.path_params["user"] + ".log"
    with open("/var/log/app/" + name) as fh:
        return PlainTextResponse(fh.read())
