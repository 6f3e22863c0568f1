"""The value judgement of credential patterns (``pytest_secreview/evaluation/credentials.py``):
a value that says it is fake is no secret anywhere; in test data and documentation a generic
credential shape is an example unless the value looks generated; a provider's key format is
reported wherever it is. Values that look like keys are built at run time."""

from __future__ import annotations

import base64
import hashlib

import pytest

from pytest_secreview.evaluation.credentials import (
    GENERIC,
    KNOWN,
    is_example_path,
    is_secret,
    looks_real,
    says_fake,
)
from pytest_secreview.safe_regex import SafePattern


def _generated(seed: str, length: int = 32) -> str:
    """A value with a generated key's mix: letters and digits from a hash."""
    digest = base64.b64encode(hashlib.sha256(seed.encode()).digest()).decode()
    return "".join(c for c in digest if c.isalnum())[:length]


def _jwt(claims: str) -> str:
    def part(text: str) -> str:
        return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")

    return ".".join([part('{"alg":"HS256","typ":"JWT"}'), part(claims), _generated("sig", 43)])


@pytest.mark.parametrize("value", [
    "sk-test-fake", "fakehashedsecret", "your-api-key", "<api-key>", "${DB_PASSWORD}",
    "{{ secrets.TOKEN }}", "changeme", "dummyTokenValue", "x" * 20, "*" * 12, "0" * 16,
    "abcabcabcabcabc", "1234567890abcdef", "qwerty-password", "foobar", "bar",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLE" + "KEY",
    _jwt('{"sub":"1234567890","name":"John Doe","iat":1516239022}'),
])
def test_a_value_that_says_it_is_fake_is_no_secret_anywhere(value: str) -> None:
    assert says_fake(value)
    for path in ("app/settings.py", "tests/test_settings.py", "docs/setup.md"):
        assert not is_secret(value, KNOWN, path)
        assert not is_secret(value, GENERIC, path)


@pytest.mark.parametrize("value", [
    "sk-should-be-kept", "sk-different-key", "pass%5B%7F", "%60%7B%7D", "secretpass",
    "%20!%22$%&'()*+,-.%3A%3B%3C%3D%3E%40%5B%5D%5E_%60%7B%7C%7D~",
])
def test_a_generic_shape_in_test_data_or_docs_is_an_example(value: str) -> None:
    assert not says_fake(value)
    assert is_secret(value, GENERIC, "app/settings.py")
    assert is_secret(value, KNOWN, "tests/models/url_vectors.json")
    for path in ("tests/models/url_vectors.json", "test_client.py", "docs/tutorial/auth.md",
                 "README.md", "examples/app/config.py"):
        assert not is_secret(value, GENERIC, path)


def test_a_generated_looking_value_is_reported_in_test_data_and_docs_too() -> None:
    value = _generated("a key")
    assert looks_real(value) and not says_fake(value)
    for path in ("tests/conftest_data.json", "docs/setup.md", "app/settings.py"):
        assert is_secret(value, GENERIC, path)
    assert is_secret(_jwt('{"sub":"u-4821","scope":"admin"}'), KNOWN, "docs/api.md")


@pytest.mark.parametrize(("value", "real"), [
    ("Zq8vR2nL5tW1", False),  # too short for a generated key
    ("correct-horse-battery-staple", False),  # words, no digit
    ("9f86d081884c7d659a2feaa0c55ad015", True),  # hex of a digest
])
def test_looks_real_needs_length_mix_and_entropy(value: str, real: bool) -> None:
    assert looks_real(value) is real


@pytest.mark.parametrize(("path", "example"), [
    ("tests/models/whatwg.json", True), ("pkg/test_client.py", True),
    ("docs/de/docs/tutorial/security/oauth2-jwt.md", True), ("CHANGELOG.md", True),
    ("examples/settings.py", True), ("conftest.py", False), ("app/settings.py", False),
    ("config/production.yml", False),
])
def test_example_paths(path: str, example: bool) -> None:
    assert is_example_path(path) is example


def test_pattern_values_are_the_value_group_of_each_match() -> None:
    pattern = SafePattern(r"(?i)password\s*=\s*\"(?P<value>[^\"]+)\"")
    assert pattern.values('password = "a" and PASSWORD="b"') == ["a", "b"]
    assert SafePattern(r"k[0-9]+").values("k1 k22") == ["k1", "k22"]
