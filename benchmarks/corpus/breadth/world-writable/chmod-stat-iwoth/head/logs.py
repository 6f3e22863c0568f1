import os
import stat


def open_shared_log(path):
    handle = open(path, "a")
    os.chmod(path, stat.S_IRUSR | stat.S_IWUSR | stat.S_IWOTH)
    return handle
