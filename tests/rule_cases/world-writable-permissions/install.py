import os
import stat
from pathlib import Path


def install(path: str, socket_dir: str):
    # ruleid: world-writable-permissions
    os.chmod(path, 0o777)
    # ruleid: world-writable-permissions
    os.chmod(path, 0o666)
    # ruleid: world-writable-permissions
    os.chmod(path, stat.S_IRUSR | stat.S_IWUSR | stat.S_IWOTH)
    # ruleid: world-writable-permissions
    Path(path).chmod(0o772)
    # ok: world-writable-permissions
    os.chmod(path, 0o755)
    # ok: world-writable-permissions
    os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
    # ruleid: world-writable-permissions
    os.makedirs(socket_dir, mode=0o777, exist_ok=True)
    # ok: world-writable-permissions
    os.makedirs(socket_dir, mode=0o700, exist_ok=True)
