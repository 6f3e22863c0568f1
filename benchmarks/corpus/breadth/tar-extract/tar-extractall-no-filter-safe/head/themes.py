import tarfile
from pathlib import Path

THEMES = Path("/srv/themes")


def install_theme(upload, name):
    target = THEMES / name
    with tarfile.open(fileobj=upload, mode="r:gz") as tar:
        tar.extractall(target, filter="data")
    return target
