import random
import secrets
import string

ALPHABET = string.ascii_letters + string.digits


def issue_reset(user, mailer):
    reset_token = "".join(random.choice(ALPHABET) for _ in range(40))
    user.reset_token = reset_token
    mailer.send(user.email, f"https://shop.example.com/reset/{reset_token}")
    return secrets.compare_digest(reset_token, user.reset_token)
