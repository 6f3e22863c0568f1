"""Values that say they are not secrets, outside test code: nothing for the rule to report."""

# ok: hardcoded-secrets
API_KEY = "your-api-key-here"
# ok: hardcoded-secrets
CLIENT_SECRET = "xxxxxxxxxxxxxxxx"
# ok: hardcoded-secrets
ACCESS_TOKEN = "1234567890abcdef"
# ok: hardcoded-secrets
DB_PASSWORD = "changeme-please"
# ok: hardcoded-secrets
AUTH_TOKEN = "dummyTokenValue"
# ok: hardcoded-secrets
CACHE_URL = "redis://user:foobar@localhost:6379/0"
# ok: hardcoded-secrets
JWT_SAMPLE = "{{JWT_IO_EXAMPLE}}"
# ok: hardcoded-secrets
GITHUB_TOKEN = "{{GITHUB_TOKEN_FILLER}}"
# A value that does not say it is fake is reported in application code.
# ruleid: hardcoded-secrets
ADMIN_PASSWORD = "{{GENERIC_PASSWORD}}"
