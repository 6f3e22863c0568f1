import socket
from tempfile import TemporaryDirectory, mktemp


def listen():
    holder = TemporaryDirectory()
    path = holder.name + "/agent.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    return server, holder
