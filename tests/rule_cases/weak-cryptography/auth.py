import hashlib

from Crypto.Cipher import AES, DES
from cryptography.hazmat.primitives.asymmetric import rsa


def store(user, password: str, salt: bytes, body: bytes):
    # ruleid: weak-cryptography
    user.password_hash = hashlib.md5(password.encode()).hexdigest()
    # ruleid: weak-cryptography
    digest = hashlib.sha256(salt + password.encode()).hexdigest()
    # ok: weak-cryptography
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 600_000)
    # ok: weak-cryptography
    etag = hashlib.md5(body, usedforsecurity=False).hexdigest()
    return digest, etag


def encrypt(key: bytes, iv: bytes, data: bytes):
    # ruleid: weak-cryptography
    cipher = AES.new(key, AES.MODE_ECB)
    # ruleid: weak-cryptography
    legacy = DES.new(key, DES.MODE_CBC, iv)
    # ok: weak-cryptography
    modern = AES.new(key, AES.MODE_GCM)
    return cipher, legacy, modern


def keypair():
    # ruleid: weak-cryptography
    return rsa.generate_private_key(public_exponent=65537, key_size=1024)


def sign(secret_key: bytes, payload: bytes):
    # ruleid: weak-cryptography
    signature = hashlib.md5(secret_key + payload).hexdigest()
    # ruleid: weak-cryptography
    check = hashlib.sha1(payload + secret_key).hexdigest()
    # ok: weak-cryptography
    cache_key = hashlib.sha1(payload).hexdigest()
    # ok: weak-cryptography
    sig_etag = hashlib.md5(payload, usedforsecurity=False).hexdigest()
    return signature, check, cache_key, sig_etag
