"""Modern primitives only: nothing for the rule to report."""

import os

from argon2 import PasswordHasher
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

_hasher = PasswordHasher()


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def seal(key: bytes, data: bytes) -> bytes:
    nonce = os.urandom(12)
    return nonce + AESGCM(key).encrypt(nonce, data, None)
