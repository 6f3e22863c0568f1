import os
import tempfile
from tempfile import mktemp


def export(rows):
    # ruleid: insecure-temp-file
    path = tempfile.mktemp(suffix=".csv")
    # ruleid: insecure-temp-file
    scratch = mktemp()
    # ok: insecure-temp-file
    fd, safe_path = tempfile.mkstemp(suffix=".csv")
    with os.fdopen(fd, "w") as out:
        out.writelines(rows)
    return path, scratch, safe_path
