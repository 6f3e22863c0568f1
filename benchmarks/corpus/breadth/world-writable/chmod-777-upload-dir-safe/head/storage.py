import os
import shutil


def store(src, dest):
    shutil.copyfile(src, dest)
    os.chmod(dest, 0o644)
    return dest
