import re

TRUSTED = re.compile(r"([a-z0-9-]+\.)*example\.com")


def trusted(host: str) -> bool:
    return TRUSTED.search(host) is not None
