import shlex
import subprocess


def thumbnail(name: str) -> None:
    # ruleid: command-injection
    safe = shlex.quote(name)
    subprocess.run(f"convert {safe} thumb.png", shell=True, check=True)
