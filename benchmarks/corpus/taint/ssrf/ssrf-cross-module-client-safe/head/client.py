import requests


def fetch_status(url):
    reply = requests.get(url, timeout=5)
    reply.raise_for_status()
    return reply.json().get("status", {})
