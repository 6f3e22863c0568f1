import os
import tempfile


def render_pdf(data: bytes) -> str:
    fd, path = tempfile.mkstemp(suffix=".pdf")
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    os.chmod(path, 0o600)
    return path
