import hashlib
import os


def create_account(store, email, password):
    salt = os.urandom(16)
    record = {
        "email": email,
        "salt": salt.hex(),
        "password_hash": hashlib.md5(password.encode()).hexdigest(),
    }
    store.insert(record)
    return record
