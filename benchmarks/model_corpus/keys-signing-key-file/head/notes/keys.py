"""The session signing key: created on first start, read on every start after."""

from __future__ import annotations

import os
import secrets


def load_or_create(path: str) -> bytes:
    if os.path.exists(path):
        with open(path, "rb") as handle:
            return handle.read()
    key = secrets.token_bytes(32)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(key)
    os.chmod(path, 0o600)
    return key
