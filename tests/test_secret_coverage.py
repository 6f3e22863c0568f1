"""What the redactor hides from outputs, the deterministic secret rules still report (by
location and kind): a secret is never merely blanked out."""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest

from pytest_secreview.diff.parser import parse_diff_text
from pytest_secreview.evaluation.deterministic import run_detect
from pytest_secreview.rules.parse import parse_rule
from pytest_secreview.tools.redaction import redact
from tests.rulecases import PLACEHOLDERS

RULES = Path(__file__).resolve().parent.parent / "rules"
SECRET_RULES = [parse_rule((RULES / f"{name}.md").read_bytes(), f"rules/{name}.md")
                for name in ("hardcoded-secrets", "private-key-committed")]
KINDS = ["AWS_ACCESS_KEY_ID", "GITHUB_TOKEN", "GITHUB_PAT", "SLACK_TOKEN", "GCP_API_KEY",
         "STRIPE_SECRET_KEY", "GITLAB_TOKEN", "NPM_TOKEN", "PYPI_TOKEN", "HUGGINGFACE_TOKEN",
         "SENDGRID_KEY", "ANTHROPIC_KEY", "OPENAI_KEY", "GOOGLE_OAUTH_SECRET", "JWT",
         "PRIVATE_KEY_BLOCK", "DB_URL_WITH_PASSWORD"]


@pytest.mark.parametrize("kind", KINDS)
def test_every_redacted_secret_kind_is_also_reported(kind: str) -> None:
    secret = PLACEHOLDERS[kind]
    assert "[REDACTED:" in redact(f'value = "{secret}"')
    body = "".join(f"+{line}\n" for line in f'value = "{secret}"'.split("\n"))
    count = body.count("\n")
    patch = (f"diff --git a/conf.py b/conf.py\nnew file mode 100644\n--- /dev/null\n"
             f"+++ b/conf.py\n@@ -0,0 +1,{count} @@\n{body}")
    (file,) = parse_diff_text(patch)
    findings = [f for rule in SECRET_RULES for f in run_detect(rule, file)]
    assert findings, f"{kind} is redacted but no deterministic rule reports it"
    assert secret.split("\n")[0] not in " ".join(f.title + f.explanation for f in findings)


def _random(alphabet: str, n: int) -> str:
    rng = random.Random(n)
    return "".join(rng.choice(alphabet) for _ in range(n - 2)) + "7q"


_B62 = string.ascii_letters + string.digits
# Shapes the redactor hides with no key name right before the value (issue 10 item 8).
BARE = {
    "aws_secret_environ_default": lambda: (
        'os.environ.get("AWS_SECRET", "' + _random(_B62 + "/+", 40) + '")'),
    "aws_secret_kwarg_default": lambda: (
        'def connect(region, creds="' + _random(_B62 + "/+", 40) + '"):'),
    "password_getenv_default": lambda: (
        'DB = os.getenv("DB_PASSWORD", "' + _random(_B62, 12) + '")'),
    "token_get_default_kwarg": lambda: (
        'cfg.get("api_token", default="' + _random(_B62, 24) + '")'),
    "credential_python_or_default": lambda: (
        'c = os.environ.get("SERVICE_CREDENTIAL") or "' + _random(_B62, 20) + '"'),
    "secret_js_fallback": lambda: (
        "const s = process.env.CLIENT_SECRET || '" + _random(_B62, 24) + "';"),
}


@pytest.mark.parametrize("name", sorted(BARE))
def test_bare_secrets_the_redactor_hides_are_reported(name: str) -> None:
    text = BARE[name]()
    assert "[REDACTED:" in redact(text)
    patch = (f"diff --git a/conf.py b/conf.py\nnew file mode 100644\n--- /dev/null\n"
             f"+++ b/conf.py\n@@ -0,0 +1 @@\n+{text}\n")
    (file,) = parse_diff_text(patch)
    rule = SECRET_RULES[0]
    assert any(p.search(text) for p in rule.grep_any), "the rule would not select the file"
    assert run_detect(rule, file), f"{name} is redacted but no deterministic rule reports it"
