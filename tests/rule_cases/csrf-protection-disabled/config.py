class ProductionConfig:
    # ruleid: csrf-protection-disabled
    WTF_CSRF_ENABLED = False


def configure(app):
    # ruleid: csrf-protection-disabled
    app.config["WTF_CSRF_ENABLED"] = False
    # ok: csrf-protection-disabled
    app.config["WTF_CSRF_TIME_LIMIT"] = 3600
