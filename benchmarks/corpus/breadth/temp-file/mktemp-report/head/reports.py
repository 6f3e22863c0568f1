import os
import tempfile


def render_pdf(data: bytes) -> str:
    path = tempfile.mktemp(suffix=".pdf")
    with open(path, "wb") as out:
        out.write(data)
    os.chmod(path, 0o600)
    return path
