import jwt
from jose import jwt as jose_jwt

PUBLIC_KEY = open("/etc/keys/jwt.pub").read()


def current_user(token):
    # ruleid: jwt-verification-disabled
    claims = jwt.decode(token, options={"verify_signature": False})
    # ok: jwt-verification-disabled
    claims = jwt.decode(token, PUBLIC_KEY, algorithms=["RS256"], audience="api")
    # ruleid: jwt-verification-disabled
    claims = jwt.decode(token, PUBLIC_KEY, algorithms=["RS256", "none"])
    # ruleid: jwt-verification-disabled
    claims = jose_jwt.get_unverified_claims(token)
    # ok: jwt-verification-disabled
    header = jwt.get_unverified_header(token)
    # ruleid: jwt-verification-disabled
    claims = jwt.decode(token, PUBLIC_KEY, algorithms=["RS256"], options={"verify_exp": False})
    return claims, header
