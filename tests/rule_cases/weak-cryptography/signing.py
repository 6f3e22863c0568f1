"""MD5 and SHA-1 where an attacker gains from a collision or a fast guess: passwords,
signatures, tokens."""

import hashlib

from Crypto.Hash import MD5, SHA1
from Crypto.Signature import pkcs1_15
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding


def register(user, raw: str, salt: bytes):
    # ruleid: weak-cryptography
    user.pw_hash = hashlib.sha1(salt + user_password(raw)).hexdigest()
    # ruleid: weak-cryptography
    password_digest = hashlib.md5(raw.encode() + salt).hexdigest()
    return password_digest


def legacy_store(password: str, salt: bytes) -> str:
    # ruleid: weak-cryptography
    return MD5.new(password.encode() + salt).hexdigest()


def user_password(raw: str) -> bytes:
    return raw.encode()


def issue(user, now: float):
    # ruleid: weak-cryptography
    reset_token = hashlib.md5(f"{user.email}{now}".encode()).hexdigest()
    # ruleid: weak-cryptography
    session_id = hashlib.sha1(str(user.id).encode() + str(now).encode()).hexdigest()
    return reset_token, session_id


def sign(private_key, rsa_key, payload: bytes):
    # ruleid: weak-cryptography
    signature = private_key.sign(payload, padding.PKCS1v15(), hashes.SHA1())
    # ruleid: weak-cryptography
    legacy = pkcs1_15.new(rsa_key).sign(SHA1.new(payload))
    return signature, legacy
