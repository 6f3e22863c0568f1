import os

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes


def seal(key: bytes, card: bytes) -> bytes:
    nonce = os.urandom(12)
    encryptor = Cipher(algorithms.AES(key), modes.GCM(nonce)).encryptor()
    return nonce + encryptor.update(card) + encryptor.finalize()
