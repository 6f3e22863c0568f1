import shlex
import subprocess


def thumbnail(name):
    quoted = shlex.quote(name)
    cmd = "convert uploads/" + quoted + " -resize 64x64 thumbs/" + quoted
    return subprocess.check_output(cmd, shell=True)
