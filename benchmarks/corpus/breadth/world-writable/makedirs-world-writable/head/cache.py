import os

CACHE = os.path.expanduser("~/.cache/shop")


def ensure_cache():
    os.makedirs(CACHE, mode=0o777, exist_ok=True)
    return CACHE
