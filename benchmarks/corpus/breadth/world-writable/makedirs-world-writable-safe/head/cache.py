import os

CACHE = os.path.expanduser("~/.cache/shop")


def ensure_cache():
    os.makedirs(CACHE, mode=0o700, exist_ok=True)
    return CACHE
