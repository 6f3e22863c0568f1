"""Names of settings, not values: nothing for the rule to report."""

import os

PROVIDER_KEYS = ("api_key", "api_base", "api_version")
OPTIONAL = ["organization", "api_key", "api_type"]


def load_provider():
    return {name: os.getenv(name.upper()) for name in ("api_key", "api_base")}


def basic_auth():
    # ruleid: hardcoded-secrets
    return ("api_key", "Zq8vR2nL5tW1")
