"""Provider tokens pasted into code."""

import os

# ruleid: hardcoded-secrets
GITLAB = "{{GITLAB_TOKEN}}"
# ruleid: hardcoded-secrets
NPM = "{{NPM_TOKEN}}"
# ruleid: hardcoded-secrets
PYPI = "{{PYPI_TOKEN}}"
# ruleid: hardcoded-secrets
HF = "{{HUGGINGFACE_TOKEN}}"
# ruleid: hardcoded-secrets
SENDGRID = "{{SENDGRID_KEY}}"
# ruleid: hardcoded-secrets
CLAUDE = "{{ANTHROPIC_KEY}}"
# ruleid: hardcoded-secrets
OAUTH = "{{GOOGLE_OAUTH_SECRET}}"
# ruleid: hardcoded-secrets
OPENAI = "{{OPENAI_KEY}}"
# ruleid: hardcoded-secrets
SESSION = "{{JWT}}"
# ok: hardcoded-secrets
GITLAB_FROM_ENV = os.environ["GITLAB_TOKEN"]
# ok: hardcoded-secrets
JWT_HEADER_PREFIX = "Bearer "
