import subprocess


def thumbnail(name: str) -> None:
    # ruleid: command-injection
    subprocess.run(f"convert {name} thumb.png", shell=True, check=True)
