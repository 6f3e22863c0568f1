from starlette.requests import Request
from starlette.responses import JSONResponse


async def start(request: Request) -> JSONResponse:
    uid = request.query_params.get("uid", "guest")
    request.session["uid"] = uid
    return JSONResponse({"uid": uid})
