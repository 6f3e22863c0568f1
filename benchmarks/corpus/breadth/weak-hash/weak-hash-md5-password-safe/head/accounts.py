import hashlib
import os


def create_account(store, email, password):
    salt = os.urandom(16)
    record = {
        "email": email,
        "salt": salt.hex(),
        "password_hash": hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 600_000).hex(),
    }
    store.insert(record)
    return record
