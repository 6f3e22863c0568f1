"""Argument lists without a shell: nothing for the rule to report."""

import shlex
import subprocess


def thumbnail(src: str, dst: str) -> None:
    subprocess.run(["convert", "--", src, "-resize", "128x128", dst], check=True, timeout=30)


def describe(ref: str) -> str:
    return subprocess.check_output(["git", "describe", "--", ref], text=True)


def quoted(path: str) -> str:
    return "ls -l " + shlex.quote(path)
