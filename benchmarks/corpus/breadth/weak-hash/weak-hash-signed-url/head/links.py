import hashlib


def download_link(signing_key: bytes, path: str, content: bytes) -> str:
    sig = hashlib.md5(signing_key + path.encode()).hexdigest()
    return f"/download/{path}?sig={sig}&size={len(content)}"
