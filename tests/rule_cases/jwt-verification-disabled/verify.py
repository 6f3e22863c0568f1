"""Signature, algorithm, audience and issuer all checked: nothing for the rule to report."""

import jwt

PUBLIC_KEY = open("/etc/keys/jwt.pub").read()


def claims(token: str) -> dict:
    return jwt.decode(
        token, PUBLIC_KEY, algorithms=["RS256"], audience="api", issuer="https://id.example.com"
    )
