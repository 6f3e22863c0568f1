import socket
from tempfile import TemporaryDirectory, mktemp


def listen():
    holder = TemporaryDirectory()
    path = mktemp(prefix="agent-")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    return server, holder
