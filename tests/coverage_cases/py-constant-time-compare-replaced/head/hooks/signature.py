import hmac


def valid(sig: str, expected: str) -> bool:
    return sig == expected
