"""MD5 and SHA-1 where no attacker gains from a collision: content checksums, cache keys,
ETags, HMAC digests. Nothing for the rule to report."""

import hashlib
import hmac
import os
import secrets

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding


def _lazy_sha1(string: bytes = b""):
    # ok: weak-cryptography
    return hashlib.sha1(string)


class CookieSigner:
    # ok: weak-cryptography
    digest_method = staticmethod(hashlib.sha1)

    def __init__(self, key: bytes):
        self.key = key

    def signature(self, value: bytes) -> bytes:
        # ok: weak-cryptography
        return hmac.new(self.key, value, digestmod=hashlib.sha1).digest()


def checksum(content: str) -> str:
    # ok: weak-cryptography
    return hashlib.md5(content.encode("utf-8")).hexdigest()


def cache_key(diff_text: str, prompt: str) -> str:
    # ok: weak-cryptography
    h = hashlib.md5()
    h.update(diff_text.encode())
    h.update(prompt.encode())
    return h.hexdigest()[:16]


def etag(body: bytes) -> str:
    # ok: weak-cryptography
    return hashlib.sha1(body, usedforsecurity=False).hexdigest()


def new_token() -> str:
    # ok: weak-cryptography
    token = hashlib.sha1(os.urandom(32)).hexdigest()
    # ok: weak-cryptography
    csrf_token = hashlib.md5(secrets.token_bytes(32)).hexdigest()
    return token + csrf_token


def unwrap(private_key, ciphertext: bytes) -> bytes:
    # ok: weak-cryptography
    oaep = padding.OAEP(mgf=padding.MGF1(algorithm=hashes.SHA1()), algorithm=hashes.SHA1(), label=None)
    return private_key.decrypt(ciphertext, oaep)
