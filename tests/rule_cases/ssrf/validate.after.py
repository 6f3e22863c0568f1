import ipaddress
import socket
from urllib.parse import urlparse

import requests


def fetch_avatar(url):
    host = urlparse(url).hostname
    addr = ipaddress.ip_address(socket.gethostbyname(host))
    return requests.get(url, timeout=5, allow_redirects=False)
