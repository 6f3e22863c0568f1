"""Secrets never appear in exception messages, reprs or logs, on any route and error path.

The fake provider is hostile: every error body echoes back the credential headers it received.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from pytest_secreview.llm import (
    ChatModel,
    ChatRequest,
    LLMError,
    LLMSettings,
    Message,
    ToolSpec,
    resolve_model,
)
from tests.fake_providers import FakeServer, FakeServers, Recorded, Reply, TokenIssuer, fast_retry

SECRET = "s3cr3t-Zq81xW"
TOOLS = [ToolSpec("read_file", "Read a file", {"type": "object", "properties": {}})]


@pytest.fixture
def fake_servers() -> Iterator[FakeServers]:
    with FakeServers() as running:
        yield running


def _credentials_seen(request: Recorded) -> str:
    names = ("authorization", "x-api-key", "x-goog-api-key")
    return " ".join(v for k, v in request.headers.items() if k in names)


def echo(status: int, template: str = '{{"error": {{"message": "rejected {seen}"}}}}',
         headers: dict[str, str] | None = None) -> Callable[[Recorded], Reply]:
    def respond(request: Recorded) -> Reply:
        seen = _credentials_seen(request)
        return Reply(status, body=template.format(seen=seen).encode(), headers=headers or {})

    return respond


SCENARIOS = {
    "401": echo(401),
    "403": echo(403),
    "400": echo(400),
    "404": echo(404),
    "tools-unsupported": echo(400, '{{"error": {{"message": "{seen} does not support tools"}}}}'),
    "context-length": echo(400, '{{"error": {{"message": "{seen}: prompt is too long"}}}}'),
    "503-until-exhausted": echo(503),
    "429-retry-after-too-long": echo(429, headers={"Retry-After": "86400"}),
    "200-not-json": echo(200, "<html>bad gateway for {seen}</html>"),
    "200-error-object": echo(200, '{{"error": "quota for {seen}"}}'),
}


@pytest.fixture(scope="module")
def pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


def _service_account(tmp_path: Path, token_uri: str, pem: str) -> Path:
    path = tmp_path / "sa.json"
    path.write_text(json.dumps({
        "type": "service_account", "private_key_id": "k", "private_key": pem,
        "client_email": "sa@p.iam.gserviceaccount.com", "token_uri": token_uri,
    }))
    return path


ROUTES = ["openai-env", "openai-settings", "anthropic", "gemini", "vertex-token",
          "vertex-anthropic-token", "vertex-openapi-token", "vertex-adc"]


def build(
    route: str, server: FakeServer, servers: FakeServers, tmp_path: Path, pem: str
) -> ChatModel:
    retry, _ = fast_retry(max_attempts=2)
    settings = LLMSettings(api_base=server.url, project="p")
    env: dict[str, str] = {}
    model = {
        "openai-env": "openai:gpt-4.1", "openai-settings": "openai:gpt-4.1",
        "anthropic": "anthropic:claude-sonnet-4-5", "gemini": "gemini:gemini-2.5-pro",
        "vertex-token": "google/gemini-2.5-pro",
        "vertex-anthropic-token": "anthropic/claude-sonnet-4-5",
        "vertex-openapi-token": "meta/llama-4-scout-17b-16e-instruct-maas",
        "vertex-adc": "google/gemini-2.5-pro",
    }[route]
    if route == "openai-env":
        env["OPENAI_API_KEY"] = SECRET
    elif route == "openai-settings":
        settings = LLMSettings(api_base=server.url, api_key=SECRET)
    elif route == "anthropic":
        env["ANTHROPIC_API_KEY"] = SECRET
    elif route == "gemini":
        env["GEMINI_API_KEY"] = SECRET
    elif route == "vertex-adc":
        oauth = servers.start(TokenIssuer(prefix=f"ya29.{SECRET}"))
        env["GOOGLE_APPLICATION_CREDENTIALS"] = str(_service_account(tmp_path, oauth.url, pem))
    else:
        env["SECREVIEW_ACCESS_TOKEN"] = SECRET
    return resolve_model(model, settings, env, retry=retry)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("scenario", [*SCENARIOS, "connection-refused"])
def test_secrets_never_leak(
    fake_servers: FakeServers,
    tmp_path: Path,
    pem: str,
    caplog: pytest.LogCaptureFixture,
    route: str,
    scenario: str,
) -> None:
    responder = SCENARIOS.get(scenario, echo(500))
    server = fake_servers.start(responder)
    model = build(route, server, fake_servers, tmp_path, pem)
    if scenario == "connection-refused":
        server.stop()
    with caplog.at_level("DEBUG"), pytest.raises(LLMError) as info:
        model.complete(ChatRequest("sys", [Message.user("hi")], TOOLS, max_output_tokens=8))

    if scenario != "connection-refused":
        assert SECRET in _credentials_seen(server.requests[0])  # the echo really carried it
    error = info.value
    for text in (str(error), repr(error), repr(model), caplog.text,
                 getattr(error, "provider_message", "")):
        assert SECRET not in text
    assert error.__cause__ is None or SECRET not in str(error.__cause__)
