from Crypto.Cipher import AES
from Crypto.Util.Padding import pad


def encrypt_blob(key: bytes, blob: bytes) -> bytes:
    cipher = AES.new(key, AES.MODE_GCM)
    return cipher.encrypt(pad(blob, 16))
