"""Vertex AI auth exercised for real, offline: google-auth's own token exchanges against local
OAuth/STS servers, tokens used as Bearer, refresh on expiry and one forced refresh on a 401."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from pytest_secreview.llm import (
    AuthenticationError,
    ChatModel,
    ChatRequest,
    LLMSettings,
    Message,
    ModelResponse,
    ProviderUnavailableError,
    resolve_model,
)
from tests.fake_providers import (
    FakeServer,
    FakeServers,
    Recorded,
    Reply,
    TokenIssuer,
    fast_retry,
    gemini_text,
)

CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"
SA_EMAIL = "reviewer@sec-proj.iam.gserviceaccount.com"
OK = Reply(200, gemini_text("fine"))


@pytest.fixture
def fake_servers() -> Iterator[FakeServers]:
    with FakeServers() as running:
        yield running


@pytest.fixture(scope="module")
def rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def service_account_file(path: Path, key: rsa.RSAPrivateKey, token_uri: str) -> Path:
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    info = {
        "type": "service_account",
        "project_id": "sec-proj",
        "private_key_id": "key-1",
        "private_key": pem,
        "client_email": SA_EMAIL,
        "client_id": "1234567890",
        "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": token_uri,
        "universe_domain": "googleapis.com",
    }
    path.write_text(json.dumps(info))
    return path


def vertex_model(provider: FakeServer, credentials: Path) -> ChatModel:
    retry, _ = fast_retry()
    env = {"GOOGLE_CLOUD_PROJECT": "sec-proj", "GOOGLE_APPLICATION_CREDENTIALS": str(credentials)}
    return resolve_model("google/gemini-2.5-flash", LLMSettings(api_base=provider.url), env,
                         retry=retry)


def ask(model: ChatModel) -> ModelResponse:
    return model.complete(ChatRequest("sys", [Message.user("diff")], None, max_output_tokens=16))


def _b64(segment: str) -> bytes:
    return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))


def test_service_account_jwt_bearer_exchange(
    fake_servers: FakeServers, tmp_path: Path, rsa_key: rsa.RSAPrivateKey
) -> None:
    issuer = TokenIssuer()
    oauth = fake_servers.start(issuer)
    provider = fake_servers.start().queue(OK)
    token_uri = oauth.url + "/token"
    model = vertex_model(provider, service_account_file(tmp_path / "sa.json", rsa_key, token_uri))
    assert oauth.requests == []  # nothing happens before the first call

    assert ask(model).text == "fine"

    (exchange,) = oauth.requests
    assert exchange.method == "POST" and exchange.path == "/token"
    assert exchange.headers["content-type"] == "application/x-www-form-urlencoded"
    assert exchange.form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer"
    header_b64, claims_b64, signature_b64 = exchange.form["assertion"].split(".")
    header = json.loads(_b64(header_b64))
    claims = json.loads(_b64(claims_b64))
    assert header == {"alg": "RS256", "typ": "JWT", "kid": "key-1"}
    assert claims["iss"] == SA_EMAIL
    # google-auth always addresses the assertion to Google's token endpoint, wherever it sends it
    assert claims["aud"] == "https://oauth2.googleapis.com/token"
    assert claims["scope"] == CLOUD_PLATFORM
    assert claims["exp"] - claims["iat"] == 3600
    # google-auth signed the assertion with the service account's key
    rsa_key.public_key().verify(
        _b64(signature_b64), f"{header_b64}.{claims_b64}".encode(),
        padding.PKCS1v15(), hashes.SHA256(),
    )
    assert provider.last.headers["authorization"] == f"Bearer {issuer.issued[0]}"


def test_token_is_reused_until_it_expires(
    fake_servers: FakeServers, tmp_path: Path, rsa_key: rsa.RSAPrivateKey
) -> None:
    long_lived, short_lived = TokenIssuer(expires_in=3600), TokenIssuer(expires_in=60)
    for issuer, tokens_used in ((long_lived, [1, 1, 1]), (short_lived, [1, 2, 3])):
        oauth = fake_servers.start(issuer)
        provider = fake_servers.start().queue(OK, OK, OK)
        path = service_account_file(tmp_path / f"sa-{issuer.expires_in}.json", rsa_key,
                                    oauth.url + "/token")
        model = vertex_model(provider, path)
        for _ in range(3):
            ask(model)
        # a token within google-auth's refresh margin (minutes) counts as expired
        assert [r.headers["authorization"] for r in provider.requests] == [
            f"Bearer {issuer.prefix}-{n}" for n in tokens_used
        ]
        assert len(oauth.requests) == tokens_used[-1]


def test_a_401_forces_exactly_one_refresh(
    fake_servers: FakeServers, tmp_path: Path, rsa_key: rsa.RSAPrivateKey
) -> None:
    issuer = TokenIssuer()
    oauth = fake_servers.start(issuer)
    revoked = Reply(401, {"error": {"code": 401, "message": "Request had invalid authentication "
                                                            "credentials.",
                                    "status": "UNAUTHENTICATED"}})
    provider = fake_servers.start().queue(revoked, OK, revoked, revoked)
    model = vertex_model(provider, service_account_file(tmp_path / "sa.json", rsa_key,
                                                        oauth.url + "/token"))
    assert ask(model).text == "fine"
    assert [r.headers["authorization"] for r in provider.requests] == [
        "Bearer ya29.fake-token-1", "Bearer ya29.fake-token-2"]
    assert len(oauth.requests) == 2

    with pytest.raises(AuthenticationError, match="GOOGLE_APPLICATION_CREDENTIALS") as info:
        ask(model)
    assert len(oauth.requests) == 3  # one forced refresh, then give up
    assert len(provider.requests) == 4
    assert info.value.status == 401
    assert "ya29.fake-token" not in str(info.value)


def test_concurrent_calls_share_one_token(
    fake_servers: FakeServers, tmp_path: Path, rsa_key: rsa.RSAPrivateKey
) -> None:
    issuer = TokenIssuer()
    oauth = fake_servers.start(issuer)
    provider = fake_servers.start(lambda request: OK)
    model = vertex_model(provider, service_account_file(tmp_path / "sa.json", rsa_key,
                                                        oauth.url + "/token"))
    errors: list[BaseException] = []

    def call() -> None:
        try:
            ask(model)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=call) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(provider.requests) == 8
    assert len(oauth.requests) == 1


def _federation_responder(issuer: TokenIssuer) -> Any:
    def respond(request: Recorded) -> Reply:
        if request.path.endswith(":generateAccessToken"):
            return Reply(200, {"accessToken": "ya29.impersonated-1",
                               "expireTime": "2099-01-01T00:00:00Z"})
        return issuer(request)

    return respond


@pytest.mark.parametrize("impersonate", [False, True], ids=["direct", "impersonation"])
def test_workload_identity_federation(
    fake_servers: FakeServers, tmp_path: Path, impersonate: bool
) -> None:
    issuer = TokenIssuer(prefix="ya29.federated")
    sts = fake_servers.start(_federation_responder(issuer))
    provider = fake_servers.start().queue(OK)
    subject = tmp_path / "github-oidc-token"
    subject.write_text("eyJhbGciOiJSUzI1NiJ9.github-actions-oidc.sig")
    audience = ("//iam.googleapis.com/projects/123456789/locations/global/"
                "workloadIdentityPools/github/providers/my-repo")
    info: dict[str, Any] = {
        "type": "external_account",
        "audience": audience,
        "subject_token_type": "urn:ietf:params:oauth:token-type:jwt",
        "token_url": sts.url + "/v1/token",
        "credential_source": {"file": str(subject)},
    }
    if impersonate:
        info["service_account_impersonation_url"] = (
            f"{sts.url}/v1/projects/-/serviceAccounts/{SA_EMAIL}:generateAccessToken"
        )
    credentials = tmp_path / "wif.json"
    credentials.write_text(json.dumps(info))

    ask(vertex_model(provider, credentials))

    exchange = sts.requests[0]
    assert exchange.path == "/v1/token"
    assert exchange.form["grant_type"] == "urn:ietf:params:oauth:grant-type:token-exchange"
    assert exchange.form["subject_token"] == "eyJhbGciOiJSUzI1NiJ9.github-actions-oidc.sig"
    assert exchange.form["subject_token_type"] == "urn:ietf:params:oauth:token-type:jwt"
    assert exchange.form["audience"] == audience
    assert exchange.form["requested_token_type"] == (
        "urn:ietf:params:oauth:token-type:access_token")
    if impersonate:
        # the federated token only needs to call IAM; the impersonated one gets our scope
        assert exchange.form["scope"] == "https://www.googleapis.com/auth/iam"
        generate = sts.requests[1]
        assert generate.path.endswith(f"/serviceAccounts/{SA_EMAIL}:generateAccessToken")
        assert generate.headers["authorization"] == "Bearer ya29.federated-1"
        assert generate.json["scope"] == [CLOUD_PLATFORM]
        expected = "Bearer ya29.impersonated-1"
    else:
        assert exchange.form["scope"] == CLOUD_PLATFORM
        expected = "Bearer ya29.federated-1"
    assert provider.last.headers["authorization"] == expected


def test_access_token_from_the_environment_is_used_as_is(fake_servers: FakeServers) -> None:
    provider = fake_servers.start().queue(OK, Reply(401, {"error": {"message": "expired"}}))
    retry, _ = fast_retry()
    env = {"GOOGLE_CLOUD_PROJECT": "p", "SECREVIEW_ACCESS_TOKEN": "ya29.from-gcloud",
           "GOOGLE_APPLICATION_CREDENTIALS": "/nonexistent.json"}
    model = resolve_model("google/gemini-2.5-pro", LLMSettings(api_base=provider.url), env,
                          retry=retry)
    ask(model)
    assert provider.last.headers["authorization"] == "Bearer ya29.from-gcloud"
    with pytest.raises(AuthenticationError, match="SECREVIEW_ACCESS_TOKEN") as info:
        ask(model)
    assert len(provider.requests) == 2  # a static token cannot be refreshed: no retry
    assert "ya29.from-gcloud" not in str(info.value)


def test_access_token_in_settings_wins(fake_servers: FakeServers) -> None:
    provider = fake_servers.start().queue(OK)
    retry, _ = fast_retry()
    settings = LLMSettings(api_base=provider.url, access_token="ya29.flag", project="p")
    model = resolve_model("google/gemini-2.5-pro", settings,
                          {"SECREVIEW_ACCESS_TOKEN": "ya29.env"}, retry=retry)
    ask(model)
    assert provider.last.headers["authorization"] == "Bearer ya29.flag"


def test_rejected_token_exchange(
    fake_servers: FakeServers, tmp_path: Path, rsa_key: rsa.RSAPrivateKey
) -> None:
    oauth = fake_servers.start().queue(
        Reply(400, {"error": "invalid_grant", "error_description": "Invalid JWT Signature."}))
    provider = fake_servers.start()
    model = vertex_model(provider, service_account_file(tmp_path / "sa.json", rsa_key,
                                                        oauth.url + "/token"))
    with pytest.raises(AuthenticationError, match=r"invalid_grant.*roles/aiplatform\.user"):
        ask(model)
    assert provider.requests == []


def test_unreachable_token_endpoint(
    fake_servers: FakeServers, tmp_path: Path, rsa_key: rsa.RSAPrivateKey
) -> None:
    oauth = fake_servers.start()
    oauth.stop()
    model = vertex_model(fake_servers.start(),
                         service_account_file(tmp_path / "sa.json", rsa_key, oauth.url + "/token"))
    with pytest.raises(ProviderUnavailableError, match="token endpoint is unreachable"):
        ask(model)


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("not json", "not JSON"),
        (json.dumps({"type": "gdch_service_account"}), "not supported"),
        (json.dumps({"type": "service_account", "client_email": "x"}), "invalid"),
        (json.dumps({"type": "external_account"}), "invalid"),
    ],
)
def test_unusable_credentials_files(
    fake_servers: FakeServers, tmp_path: Path, content: str, match: str
) -> None:
    path = tmp_path / "creds.json"
    path.write_text(content)
    with pytest.raises(AuthenticationError, match=match):
        ask(vertex_model(fake_servers.start(), path))
