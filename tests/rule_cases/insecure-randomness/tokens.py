import random
import secrets
import string


def make_reset_token():
    # ruleid: insecure-randomness
    reset_token = "".join(random.choice(string.ascii_letters) for _ in range(32))
    # ok: insecure-randomness
    reset_token = secrets.token_urlsafe(32)
    return reset_token


def make_otp():
    # ruleid: insecure-randomness
    otp = random.randint(100000, 999999)
    # ok: insecure-randomness
    otp = secrets.randbelow(900000) + 100000
    return otp


def make_api_key():
    # ok: insecure-randomness
    session_id = random.SystemRandom().getrandbits(128)
    # ruleid: insecure-randomness
    api_key = "%032x" % random.getrandbits(128)
    return session_id, api_key


def quiz(questions):
    # ok: insecure-randomness
    return random.sample(questions, 5), random.uniform(0.1, 0.5)
