"""Secret redaction and detection. Every secret-shaped value is assembled at run time: the
repository never holds one literally (a secret scanner on this repo must stay quiet)."""

from __future__ import annotations

import base64
import functools
import json
import random
import string
import threading
from collections.abc import Callable

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from pytest_secreview.tools.redaction import find_secrets, redact, strip_control

_RNG = random.Random(20260101)
_ALNUM = string.ascii_letters + string.digits


def _chars(alphabet: str, n: int) -> str:
    # At least one digit and one letter so no rule mistakes the value for a word.
    body = "".join(_RNG.choice(alphabet) for _ in range(n - 2))
    return body + "7" + "q"


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _jwt() -> str:
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = _b64url(json.dumps({"sub": "1234567890", "name": "x", "iat": 1}).encode())
    return f"{header}.{payload}.{_b64url(bytes(_RNG.randrange(256) for _ in range(32)))}"


@functools.cache
def _rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _rsa_pem() -> str:
    key = _rsa_key()
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    ).decode()


def _openssh_pem() -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.OpenSSH,
        serialization.NoEncryption(),
    ).decode()


def _service_account() -> tuple[str, str]:
    pem = key_pkcs8()
    document = json.dumps(
        {
            "type": "service_account",
            "project_id": "demo",
            "private_key_id": "".join(_RNG.choice("0123456789abcdef") for _ in range(40)),
            "private_key": pem,
            "client_email": "svc@demo.iam.gserviceaccount.com",
        },
        indent=2,
    )
    return document, json.dumps(pem)[1:-1]  # the key as it appears, JSON-escaped


def key_pkcs8() -> str:
    key = _rsa_key()
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


def aws_key_id() -> str:
    return "AK" + "IA" + "".join(_RNG.choice(string.ascii_uppercase + "234567") for _ in range(16))


def github_token(prefix: str) -> str:
    return "gh" + prefix + "_" + _chars(_ALNUM, 36)


# (id, builder returning (text, secret), expected kind)
SECRETS: list[tuple[str, Callable[[], tuple[str, str]], str]] = []


def _case(case_id: str, kind: str) -> Callable[[Callable[[], tuple[str, str]]], None]:
    def register(builder: Callable[[], tuple[str, str]]) -> None:
        SECRETS.append((case_id, builder, kind))

    return register


def _embed(template: str, secret: str) -> tuple[str, str]:
    return template.format(s=secret), secret


_case("aws_access_key_id", "aws_access_key_id")(lambda: _embed("key = {s}\n", aws_key_id()))
_case("aws_secret_access_key", "aws_secret_access_key")(
    lambda: _embed('aws_secret_access_key = "{s}"', _chars(_ALNUM + "/+", 40))
)
_case("aws_secret_yaml", "aws_secret_access_key")(
    lambda: _embed("AWS_SECRET_ACCESS_KEY: {s}\n", _chars(_ALNUM + "/+", 40))
)
_case("gcp_api_key", "gcp_api_key")(
    lambda: _embed("const k = '{s}';", "AI" + "za" + _chars(_ALNUM + "-_", 35))
)
_case("gcp_service_account_json", "gcp_service_account_key")(_service_account)
_case("google_oauth_access_token", "google_oauth_token")(
    lambda: _embed("curl -d access={s}", "ya" + "29." + _chars(_ALNUM + "-_", 60))
)
_case("google_oauth_client_secret", "google_oauth_client_secret")(
    lambda: _embed("secret {s}", "GOC" + "SPX-" + _chars(_ALNUM + "-_", 28))
)
_case("github_ghp", "github_token")(lambda: _embed("token: {s}", github_token("p")))
_case("github_gho", "github_token")(lambda: _embed("x {s} y", github_token("o")))
_case("github_ghu", "github_token")(lambda: _embed("x {s} y", github_token("u")))
_case("github_ghs", "github_token")(lambda: _embed("x={s}", github_token("s")))
_case("github_ghr", "github_token")(lambda: _embed("[{s}]", github_token("r")))
_case("github_pat", "github_token")(
    lambda: _embed(
        "GH={s}\n", "github" + "_pat_" + _chars(_ALNUM, 22) + "_" + _chars(_ALNUM, 59)
    )
)
_case("gitlab", "gitlab_token")(lambda: _embed("t {s}", "gl" + "pat-" + _chars(_ALNUM, 20)))
_case("slack_bot", "slack_token")(
    lambda: _embed("slack {s}", "xo" + "xb-" + "1234567890-1234567890123-" + _chars(_ALNUM, 24))
)
_case("slack_user", "slack_token")(
    lambda: _embed("slack {s}", "xo" + "xp-" + "1234567890-" + _chars(_ALNUM, 24))
)
_case("slack_webhook", "slack_webhook")(
    lambda: _embed(
        "url: {s}\n",
        "https://hooks.slack" + ".com/services/T" + _chars("ABCDEFGH0123", 8) + "/B"
        + _chars("ABCDEFGH0123", 8) + "/" + _chars(_ALNUM, 24),
    )
)
_case("stripe_live", "stripe_key")(
    lambda: _embed("Stripe.api_key = {s}", "sk" + "_live_" + _chars(_ALNUM, 24))
)
_case("openai_project", "openai_api_key")(
    lambda: _embed("OPENAI {s}", "sk-" + "proj-" + _chars(_ALNUM + "-_", 64))
)
_case("openai_legacy", "openai_api_key")(lambda: _embed("key {s}", "sk-" + _chars(_ALNUM, 48)))
_case("anthropic", "anthropic_api_key")(
    lambda: _embed("key {s}", "sk-" + "ant-api03-" + _chars(_ALNUM + "-_", 80))
)
_case("rsa_private_key_block", "private_key")(
    lambda: _embed("key:\n{s}\nafter", _rsa_pem().strip())
)
_case("openssh_private_key_block", "private_key")(lambda: _embed("{s}", _openssh_pem().strip()))
_case("pkcs8_private_key_in_string", "private_key")(
    lambda: _embed('KEY = "{s}"', json.dumps(key_pkcs8().strip())[1:-1])
)
_case("jwt", "jwt")(lambda: _embed("Cookie: session={s}; Path=/", _jwt()))
_case("authorization_bearer", "authorization_header")(
    lambda: _embed("Authorization: Bearer {s}\n", _chars(_ALNUM + "._-", 32))
)
_case("authorization_basic", "authorization_header")(
    lambda: _embed(
        'headers["Authorization"] = "Basic {s}"',
        base64.b64encode(b"user:pw-" + _chars(_ALNUM, 12).encode()).decode(),
    )
)
_case("bearer_in_log", "bearer_token")(
    lambda: _embed("curl -H 'x: Bearer {s}'", _chars(_ALNUM, 30))
)
_case("url_password", "url_credentials")(
    lambda: _embed("DATABASE_URL=postgres://app:{s}@db:5432/app\n", _chars(_ALNUM, 12))
)
_case("url_git_token", "url_credentials")(
    lambda: _embed("https://x-access-token:{s}@github.com/o/r.git", _chars(_ALNUM, 20))
)
_case("python_password", "password")(lambda: _embed('password = "{s}"\n', _chars(_ALNUM, 12)))
_case("python_annotated", "password")(
    lambda: _embed('    db_password: str = "{s}"\n', _chars(_ALNUM, 12))
)
_case("json_api_key", "api_key")(lambda: _embed('{{"api_key": "{s}"}}', _chars(_ALNUM, 20)))
_case("yaml_secret", "secret")(lambda: _embed("client_secret: {s}\n", _chars(_ALNUM, 20)))
_case("env_token", "token")(lambda: _embed("export AUTH_TOKEN={s}\n", _chars(_ALNUM, 20)))
_case("go_short_assign", "secret")(lambda: _embed('secretKey := "{s}"', _chars(_ALNUM, 16)))
_case("ruby_hash_rocket", "password")(
    lambda: _embed(":password => '{s}'", _chars(_ALNUM, 10))
)
_case("comparison", "password")(
    lambda: _embed('if pwd == "{s}":', _chars(_ALNUM, 10))
)
_case("npm_token", "npm_token")(
    lambda: _embed("//r/:_authToken={s}", "np" + "m_" + _chars(_ALNUM, 36))
)

# Bare values: no key name right before them (issue 10 item 8).
_case("aws_secret_as_environ_default", "aws_secret_access_key")(
    lambda: _embed('os.environ.get("AWS_SECRET", "{s}")', _chars(_ALNUM + "/+", 40))
)
_case("aws_secret_next_to_key_id", "aws_secret_access_key")(
    lambda: _embed(f'boto3.client("s3", "{aws_key_id()}", "{{s}}")', _chars(_ALNUM + "/+", 40))
)
_case("aws_secret_line_after_key_id", "aws_secret_access_key")(
    lambda: _embed(f'KEYS = [\n    "{aws_key_id()}",\n    "{{s}}",\n]', _chars(_ALNUM, 40))
)
_case("aws_secret_as_kwarg_default", "aws_secret_access_key")(
    lambda: _embed('def connect(region, creds="{s}"):', _chars(_ALNUM + "/+", 40))
)
_case("aws_secret_yaml_list_after_key_id", "aws_secret_access_key")(
    lambda: _embed(f"credentials:\n  - {aws_key_id()}\n  - {{s}}\n", _chars(_ALNUM + "/+", 40))
)
_case("aws_secret_go_getenv_default", "aws_secret_access_key")(
    lambda: _embed('secret := getEnv("AWS_SECRET", "{s}")', _chars(_ALNUM + "/+", 40))
)
_case("password_java_get_or_default", "password")(
    lambda: _embed('System.getenv().getOrDefault("DB_PASSWORD", "{s}");', _chars(_ALNUM, 16))
)
_case("password_as_getenv_default", "password")(
    lambda: _embed('DB = os.getenv("DB_PASSWORD", "{s}")', _chars(_ALNUM, 12))
)
_case("hex_api_key_as_getenv_default", "api_key")(
    lambda: _embed('os.getenv("DATADOG_API_KEY", "{s}")',
                   "".join(_RNG.choice("0123456789abcdef") for _ in range(32)))
)
_case("token_as_get_default_kwarg", "token")(
    lambda: _embed('cfg.get("api_token", default="{s}")', _chars(_ALNUM, 24))
)
_case("secret_as_js_fallback", "secret")(
    lambda: _embed("const s = process.env.CLIENT_SECRET || '{s}';", _chars(_ALNUM, 24))
)
_case("credential_as_python_or_default", "secret")(
    lambda: _embed('c = os.environ.get("SERVICE_CREDENTIAL") or "{s}"', _chars(_ALNUM, 20))
)


@pytest.mark.parametrize(
    ("builder", "kind"), [(b, k) for _, b, k in SECRETS], ids=[i for i, _, _ in SECRETS]
)
def test_secret_is_redacted_and_found(builder: Callable[[], tuple[str, str]], kind: str) -> None:
    text, secret = builder()
    redacted = redact(text)
    assert secret not in redacted
    assert "[REDACTED:" in redacted
    found = find_secrets(text)
    assert found, "find_secrets saw nothing"
    covering = [m for m in found if m.start <= text.index(secret) < m.end]
    assert covering and covering[0].kind == kind
    # Every character of the secret lies inside one reported span.
    start = text.index(secret)
    assert any(m.start <= start and start + len(secret) <= m.end for m in found)


def test_service_account_document_keeps_its_structure() -> None:
    document, _ = _service_account()
    redacted = redact(document)
    parsed = json.loads(redacted)
    assert parsed["private_key"] == "[REDACTED:gcp_service_account_key]"
    assert parsed["private_key_id"] == "[REDACTED:gcp_private_key_id]"
    assert parsed["client_email"] == "svc@demo.iam.gserviceaccount.com"


def test_private_key_block_is_redacted_whole() -> None:
    pem = _rsa_pem()
    text = f"before\n{pem}after\n"
    assert redact(text) == "before\n[REDACTED:private_key]\nafter\n"


def test_assignment_keeps_the_key_name_visible() -> None:
    secret = _chars(_ALNUM, 12)
    assert redact(f'password = "{secret}"') == 'password = "[REDACTED:password]"'


NOT_SECRETS = [
    ("form_lookup", 'password = request.form["password"]'),
    ("none", "token = None"),
    ("signature", "def login(user: str, password: str) -> bool:"),
    ("attribute", "password = user.password"),
    ("call", "token = get_token(session)"),
    ("environ", 'password = os.environ["DB_PASSWORD"]'),
    ("template", '"password": "${DB_PASSWORD}"'),
    ("jinja", "password: {{ vault_password }}"),
    ("placeholder", 'api_key = "changeme"'),
    ("masked", 'password = "********"'),
    ("max_tokens", "max_tokens = 1000"),
    ("tokenizer", 'tokenizer = "bert-base-uncased"'),
    ("password_hint", 'password_hint = "your first pet"'),
    ("bearer_prose", "Use Bearer authentication for every request."),
    ("sk_learn", "pip install scikit-learn sk-learn-helpers"),
    ("url_without_password", "https://user@example.com/path"),
    ("pem_marker_in_code", 'if line.startswith("-----BEGIN RSA PRIVATE KEY-----"):'),
    ("plain_prose", "The token bucket refills every second; the secret sauce is caching."),
    ("yaml_nested", "token:\n  ttl: 300\n"),
    ("hash", "sha = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'"),
    # Shapes close to a bare secret that are ordinary content (issue 10 item 8).
    ("git_sha_near_key", 'cache_key = "' + "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b" + '"'),
    ("git_sha_as_default", 'rev = os.getenv("TOKEN_REV", "' + "0" * 12 + "a1b2c3d4e5f6" * 2 + '")'),
    ("uuid_as_default", 'os.getenv("SECRET_ID", "123e4567-e89b-12d3-a456-426614174000")'),
    ("npm_lock_integrity",
     '"integrity": "sha512-' + "Qm9vYmFyQmF6UXV4" * 5 + 'ab0Q=="'),
    ("yarn_lock_sha1", 'integrity sha1-' + "Zm9vYmFyYmF6cXV4cXV1eDA=" + "\n"),
    ("go_sum",
     "golang.org/x/text v0.3.7 h1:" + "olpwvP2KacW1ZWvsR7uQhoyTYvKAupfQrRGBFM352Gk=" + "\n"),
    ("poetry_hash", 'hash = "sha256:' + "ab12" * 16 + '"'),
    ("path_default", 'os.getenv("SECRET_KEY_FILE", "/etc/app/secret-key.pem")'),
    ("name_default", 'os.getenv("TOKEN_HEADER", "X-Service-Auth2")'),
    ("numeric_default", 'os.getenv("TOKEN_TTL_SECONDS", "86400000")'),
    ("word_default", 'os.getenv("PASSWORD_POLICY", "strict_mode")'),
    ("lowercase_path_near_key", 'banner_key = "assets/img/2024/spring/banner/hero12abcd"'),
    ("constant_near_key", 'KEY_NAME = "' + "CONFIG_" * 0 + "ABCDEFGHIJ0123456789" * 2 + '"'),
    ("base64_far_from_names", 'ICON = "' + "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf" + '"'),
]


@pytest.mark.parametrize("text", [n[1] for n in NOT_SECRETS], ids=[n[0] for n in NOT_SECRETS])
def test_ordinary_code_is_left_alone(text: str) -> None:
    assert redact(text) == text
    assert find_secrets(text) == []


def test_find_secrets_reports_positions_and_lines() -> None:
    key_id = aws_key_id()
    token = github_token("p")
    text = f"héllo wörld\nfirst = 1\nid = {key_id}\n\n  gh: {token}\n"
    found = find_secrets(text)
    assert [(m.kind, m.line) for m in found] == [("aws_access_key_id", 3), ("github_token", 5)]
    assert [text[m.start : m.end] for m in found] == [key_id, token]


def test_redact_equals_replacing_found_spans() -> None:
    text = "\n".join(builder()[0] for _, builder, _ in SECRETS)
    expected, pos = [], 0
    for match in find_secrets(text):
        expected.append(text[pos : match.start])
        expected.append(f"[REDACTED:{match.kind}]")
        pos = match.end
    expected.append(text[pos:])
    assert redact(text) == "".join(expected)


def test_redaction_is_idempotent() -> None:
    text = "\n".join(builder()[0] for _, builder, _ in SECRETS)
    once = redact(text)
    assert redact(once) == once


def _finishes(function: Callable[[], object], seconds: float = 60.0) -> None:
    """Hang guard, not a benchmark: fail only if ``function`` never returns."""
    done = threading.Event()

    def run() -> None:
        function()
        done.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert done.wait(seconds), "did not finish: the scan is not linear"


HOSTILE_TEXTS = [
    ("unterminated_quotes", lambda: 'password="' * 200_000),
    ("unterminated_pem", lambda: "-----BEGIN RSA PRIVATE KEY-----\n" * 50_000),
    ("long_base64_after_pem", lambda: "-----BEGIN PRIVATE KEY-----\n" + "A" * 2_000_000),
    ("bearer_runs", lambda: "Bearer " + "a1" * 1_000_000),
    ("url_colons", lambda: "http://" + "u:" * 1_000_000),
    ("jwt_prefixes", lambda: "eyJ" * 700_000),
    ("keys_after_open_quote", lambda: 'token = "' + (aws_key_id() + " ") * 50_000),
    ("minified_line", lambda: ("var a=1;" * 300_000)),
]


@pytest.mark.parametrize("make", [h[1] for h in HOSTILE_TEXTS], ids=[h[0] for h in HOSTILE_TEXTS])
def test_megabytes_of_hostile_text_are_scanned_linearly(make: Callable[[], str]) -> None:
    text = make()
    _finishes(lambda: redact(text))


STRIP = [
    ("ansi_colour", "\x1b[31mred\x1b[0m", "red"),
    ("cursor_moves", "a\x1b[2K\x1b[1Ab", "ab"),
    ("osc_title", "\x1b]0;pwned\x07text", "text"),
    ("osc_st", "\x1b]8;;http://x\x1b\\link", "link"),
    ("carriage_return", "ok\rfake", "okfake"),
    ("nul_bell", "a\x00b\x07c", "abc"),
    ("c1_csi", "a\x9b31mb", "ab"),
    ("keeps_newline_tab", "a\n\tb", "a\n\tb"),
    ("keeps_unicode", "héllo — ✓", "héllo — ✓"),
    ("lone_escape", "a\x1bb", "ab"),
]


@pytest.mark.parametrize(("raw", "clean"), [s[1:] for s in STRIP], ids=[s[0] for s in STRIP])
def test_strip_control(raw: str, clean: str) -> None:
    assert strip_control(raw) == clean


def test_strip_control_misses_no_character_of_any_kind() -> None:
    # Text without a control character is returned as it is (no copy is made); every other
    # text is cleaned. Each code point of the first 256 and a few beyond, alone and inside
    # text, against the cleaning written out in full.
    from pytest_secreview.tools import redaction

    for code in [*range(0x100), 0x2028, 0x202E, 0xFEFF, 0x1F534]:
        for text in (chr(code), f"ab{chr(code)}[31mcd\n", "✓" * 3 + chr(code)):
            full = redaction._ANSI.sub("", text).translate(redaction._CONTROL)
            assert strip_control(text) == full, hex(code)
    clean = "héllo — ✓\n\tno control here" * 1000
    assert strip_control(clean) == clean


def _every_rule_spans(text: str) -> list[tuple[int, int, str]]:
    """The spans every rule's own search finds, without the Set that picks the rules."""
    from pytest_secreview.tools import redaction

    return redaction._byte_spans(text.encode("utf-8", "surrogatepass"),
                                 range(len(redaction._RULES)))


@pytest.mark.parametrize("make", [*(b for _, b, _ in SECRETS), *(
    (lambda h=h: (h[1](), "")) for h in HOSTILE_TEXTS)],
    ids=[*(i for i, _, _ in SECRETS), *(h[0] for h in HOSTILE_TEXTS)])
def test_the_rule_set_picks_every_rule_that_matches(make: Callable[[], tuple[str, str]]) -> None:
    # redact() searches only the rules one RE2 Set pass names: on long hostile texts too
    # (a Set that gave up on its DFA would name none, and leave the secret in the text).
    from pytest_secreview.tools import redaction

    text = make()[0]
    data = text.encode("utf-8", "surrogatepass")
    assert redaction._byte_spans(data) == _every_rule_spans(text)
    padded = "x = 1\n" * 20_000 + text + "\ny = 2\n" * 20_000
    assert redaction._byte_spans(padded.encode("utf-8", "surrogatepass")) == (
        _every_rule_spans(padded))


def test_a_cached_redaction_is_the_same_as_a_fresh_one() -> None:
    from pytest_secreview.tools import redaction

    cases = [builder() for _, builder, _ in SECRETS]
    first = [redact(text) for text, _ in cases]
    assert [redact(text) for text, _ in cases] == first  # from the cache
    assert first == [redaction._redact(text) for text, _ in cases]
    assert all(secret not in done for done, (_, secret) in zip(first, cases, strict=True))
