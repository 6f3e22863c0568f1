from sqlalchemy import create_engine, text
from starlette.requests import Request
from starlette.responses import JSONResponse

engine = create_engine("sqlite:///library.db")


async def search(request: Request) -> JSONResponse:
    form = await request.form()
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT title FROM books WHERE isbn = :isbn"), {"isbn": form["isbn"]}).all()
    return JSONResponse({"titles": [r[0] for r in rows]})
