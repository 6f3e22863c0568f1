"""Server-generated names and containment checks: nothing for the rule to report."""

import uuid
from pathlib import Path

from flask import request, send_from_directory

MEDIA = Path("/srv/media").resolve()


def store_upload():
    upload = request.files["file"]
    target = MEDIA / f"{uuid.uuid4().hex}.bin"
    upload.save(target)
    return target.name


def serve(name: str):
    candidate = (MEDIA / name).resolve()
    if not candidate.is_relative_to(MEDIA):
        raise PermissionError(name)
    return send_from_directory(MEDIA, candidate.name)
