class ProductionConfig:
    # ruleid: insecure-cookie
    SESSION_COOKIE_SECURE = False
    # ok: insecure-cookie
    SESSION_COOKIE_HTTPONLY = True
    # ok: insecure-cookie
    SESSION_COOKIE_SAMESITE = "Lax"


def configure(app):
    # ruleid: insecure-cookie
    app.config["REMEMBER_COOKIE_HTTPONLY"] = False
    # ok: insecure-cookie
    app.config["SESSION_COOKIE_SECURE"] = True
