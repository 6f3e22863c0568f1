import random
import string

ALPHABET = string.ascii_letters + string.digits


def new_session():
    # ruleid: insecure-randomness
    session_id = "".join(random.choices(ALPHABET, k=32))
    # ruleid: insecure-randomness
    nonce = random.getrandbits(64)
    # ok: insecure-randomness
    csrf_token = "".join(random.SystemRandom().choice(ALPHABET) for _ in range(32))
    # ruleid: insecure-randomness
    password = "".join(random.choice(ALPHABET) for _ in range(12))
    return session_id, nonce, csrf_token, password
