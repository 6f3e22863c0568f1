import hmac


def valid(sig: str, expected: str) -> bool:
    return hmac.compare_digest(sig, expected)
