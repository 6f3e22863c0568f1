"""Service configuration."""

import os

# ruleid: hardcoded-secrets
AWS_ACCESS_KEY_ID = "{{AWS_ACCESS_KEY_ID}}"
# ruleid: hardcoded-secrets
AWS_SECRET_ACCESS_KEY = "{{AWS_SECRET_ACCESS_KEY}}"
# ok: hardcoded-secrets
AWS_REGION = os.environ.get("AWS_REGION", "eu-west-1")
# ok: hardcoded-secrets
DOCS_EXAMPLE_KEY_ID = "{{AWS_EXAMPLE_KEY_ID}}"

# ruleid: hardcoded-secrets
DB_PASSWORD = "{{GENERIC_PASSWORD}}"
# ok: hardcoded-secrets
DB_PASSWORD_FROM_ENV = os.getenv("DB_PASSWORD", "")
# ruleid: hardcoded-secrets
AWS_SECRET = os.environ.get("AWS_SECRET", "{{AWS_SECRET_ACCESS_KEY}}")
# ruleid: hardcoded-secrets
DB_PASSWORD_OR_DEFAULT = os.getenv("DB_PASSWORD", "{{GENERIC_PASSWORD}}")
# ok: hardcoded-secrets
DB_PASSWORD_FILE = os.getenv("DB_PASSWORD_FILE", "/run/secrets/db-password")
# ok: hardcoded-secrets
BANNER_KEY = "assets/img/2024/spring/banner/hero12abcd"
# ok: hardcoded-secrets
CACHE_KEY = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b"
# ok: hardcoded-secrets
PASSWORD_FIELD = "password_confirmation"
# ok: hardcoded-secrets
API_KEY = "<your-api-key>"

# ruleid: hardcoded-secrets
DATABASE_URL = "{{DB_URL_WITH_PASSWORD}}"
# ok: hardcoded-secrets
DATABASE_URL_TEMPLATE = "postgres://app:${DB_PASSWORD}@db.internal:5432/app"

# ruleid: hardcoded-secrets
STRIPE_KEY = "{{STRIPE_SECRET_KEY}}"
# ok: hardcoded-secrets
STRIPE_KEY_FROM_ENV = os.environ["STRIPE_SECRET_KEY"]

# ok: hardcoded-secrets
SECRET_TEMPLATE = "{secret}"
# ok: hardcoded-secrets
PASSWD_LINK = "/etc/passwd"
# ok: hardcoded-secrets
TEST_API_KEY = "test-openai-key"
