import subprocess


def thumbnail(name):
    cmd = "convert uploads/" + name + " -resize 64x64 thumbs/" + name
    return subprocess.check_output(cmd, shell=True)
