"""Model strings to adapters and URLs (DESIGN section 4, "Models")."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_secreview.errors import ConfigError
from pytest_secreview.llm import (
    AuthenticationError,
    ChatModel,
    ChatRequest,
    LLMSettings,
    Message,
    parse_model,
    resolve_model,
)
from pytest_secreview.llm.anthropic import AnthropicModel
from pytest_secreview.llm.gemini import GeminiModel
from pytest_secreview.llm.openai import OpenAIChatModel
from pytest_secreview.llm.routing import Route, vertex_base_url
from tests.fake_providers import FakeServers, Reply, fast_retry, openai_completion

VERTEX_ENV = {"GOOGLE_CLOUD_PROJECT": "proj-7", "SECREVIEW_ACCESS_TOKEN": "tok"}
ALL_KEYS = {"OPENAI_API_KEY": "o", "ANTHROPIC_API_KEY": "a", "GEMINI_API_KEY": "g", **VERTEX_ENV}


@pytest.fixture
def fake_servers() -> Iterator[FakeServers]:
    with FakeServers() as running:
        yield running


@pytest.mark.parametrize(
    ("model", "route"),
    [
        ("google/gemini-2.5-pro", Route("vertex", "gemini-2.5-pro", "google")),
        ("anthropic/claude-sonnet-4-5@20250929",
         Route("vertex", "claude-sonnet-4-5@20250929", "anthropic")),
        ("moonshotai/kimi-k2-thinking-maas",
         Route("vertex", "kimi-k2-thinking-maas", "moonshotai")),
        ("deepseek-ai/deepseek-v3.1-maas", Route("vertex", "deepseek-v3.1-maas", "deepseek-ai")),
        ("openai:gpt-4.1", Route("openai", "gpt-4.1")),
        ("openai:meta-llama/Llama-3.3-70B-Instruct",
         Route("openai", "meta-llama/Llama-3.3-70B-Instruct")),
        ("openai:llama3.1:8b", Route("openai", "llama3.1:8b")),
        ("anthropic:claude-opus-4-1", Route("anthropic", "claude-opus-4-1")),
        ("gemini:gemini-2.5-flash", Route("gemini", "gemini-2.5-flash")),
        ("  google/gemini-2.5-flash  ", Route("vertex", "gemini-2.5-flash", "google")),
    ],
)
def test_parse_model(model: str, route: Route) -> None:
    assert parse_model(model) == route


@pytest.mark.parametrize(
    "model",
    ["", "gemini-2.5-pro", "openai:", "anthropic: claude", "google/", "/gemini",
     "google/gemini/2.5", "Google/gemini-2.5-pro", "google/gemini 2.5", "azure:gpt-4o",
     "google/../../x"],
)
def test_malformed_model_strings_list_the_accepted_forms(model: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_model(model)
    message = str(info.value)
    for form in ("publisher/model", "openai:<model>", "anthropic:<model>", "gemini:<model>"):
        assert form in message


@pytest.mark.parametrize(
    ("model", "cls", "url"),
    [
        ("google/gemini-2.5-pro", GeminiModel,
         "https://aiplatform.googleapis.com/v1/projects/proj-7/locations/global/publishers/"
         "google/models/gemini-2.5-pro:generateContent"),
        ("anthropic/claude-sonnet-4-5@20250929", AnthropicModel,
         "https://aiplatform.googleapis.com/v1/projects/proj-7/locations/global/publishers/"
         "anthropic/models/claude-sonnet-4-5@20250929:rawPredict"),
        ("mistralai/mistral-medium-2505", OpenAIChatModel,
         "https://aiplatform.googleapis.com/v1/projects/proj-7/locations/global/endpoints/"
         "openapi/chat/completions"),
        ("meta/llama-4-maverick-17b-128e-instruct-maas", OpenAIChatModel,
         "https://aiplatform.googleapis.com/v1/projects/proj-7/locations/global/endpoints/"
         "openapi/chat/completions"),
        ("qwen/qwen3-coder-480b-a35b-instruct-maas", OpenAIChatModel,
         "https://aiplatform.googleapis.com/v1/projects/proj-7/locations/global/endpoints/"
         "openapi/chat/completions"),
        ("openai:gpt-4.1", OpenAIChatModel, "https://api.openai.com/v1/chat/completions"),
        ("anthropic:claude-sonnet-4-5", AnthropicModel, "https://api.anthropic.com/v1/messages"),
        ("gemini:gemini-2.5-flash", GeminiModel,
         "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:"
         "generateContent"),
    ],
)
def test_routes(model: str, cls: type, url: str) -> None:
    resolved = resolve_model(model, LLMSettings(), ALL_KEYS)
    assert isinstance(resolved, cls)
    assert isinstance(resolved, ChatModel)
    assert resolved.model_id == model
    assert resolved.url == url  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("location", "host"),
    [
        ("global", "https://aiplatform.googleapis.com"),
        ("us-central1", "https://us-central1-aiplatform.googleapis.com"),
        ("europe-west4", "https://europe-west4-aiplatform.googleapis.com"),
        ("us", "https://aiplatform.us.rep.googleapis.com"),
        ("eu", "https://aiplatform.eu.rep.googleapis.com"),
    ],
)
def test_vertex_hosts(location: str, host: str) -> None:
    assert vertex_base_url(location) == host
    model = resolve_model("google/gemini-2.5-pro", LLMSettings(location=location), VERTEX_ENV)
    assert model.url == (  # type: ignore[attr-defined]
        f"{host}/v1/projects/proj-7/locations/{location}/publishers/google/models/"
        "gemini-2.5-pro:generateContent"
    )


def test_location_from_environment_and_settings_precedence() -> None:
    env = {**VERTEX_ENV, "GOOGLE_CLOUD_LOCATION": "asia-northeast1"}
    from_env = resolve_model("google/gemini-2.5-pro", LLMSettings(), env)
    assert "/locations/asia-northeast1/" in from_env.url  # type: ignore[attr-defined]
    from_settings = resolve_model("google/gemini-2.5-pro",
                                  LLMSettings(location="us-east5", project="other"), env)
    assert "/projects/other/locations/us-east5/" in from_settings.url  # type: ignore[attr-defined]


@pytest.mark.parametrize("model", ["google/gemini-2.5-pro", "anthropic/claude-opus-4-1",
                                   "moonshotai/kimi-k2-thinking-maas", "openai:gpt-4.1",
                                   "anthropic:claude-sonnet-4-5", "gemini:gemini-2.5-pro"])
def test_api_base_replaces_the_base_on_every_route(model: str) -> None:
    base = "http://127.0.0.1:9/proxy"
    resolved = resolve_model(model, LLMSettings(api_base=base + "/"), ALL_KEYS)
    url: str = resolved.url  # type: ignore[attr-defined]
    assert url.startswith(base + "/")
    env_based = resolve_model(model, LLMSettings(), {**ALL_KEYS, "SECREVIEW_API_BASE": base})
    assert env_based.url == url  # type: ignore[attr-defined]


def test_api_base_keeps_the_vertex_path_visible() -> None:
    model = resolve_model("google/gemini-2.5-pro",
                          LLMSettings(api_base="http://127.0.0.1:8080", location="eu"), VERTEX_ENV)
    assert model.url == (  # type: ignore[attr-defined]
        "http://127.0.0.1:8080/v1/projects/proj-7/locations/eu/publishers/google/models/"
        "gemini-2.5-pro:generateContent"
    )


def test_missing_project_names_the_variable_and_the_flag() -> None:
    with pytest.raises(ConfigError, match=r"GOOGLE_CLOUD_PROJECT.*--secreview-project"):
        resolve_model("google/gemini-2.5-pro", LLMSettings(), {"GOOGLE_CLOUD_PROJECT": ""})


@pytest.mark.parametrize(
    ("settings", "env", "match"),
    [
        (LLMSettings(location="us-central1/../x"), VERTEX_ENV, "location"),
        (LLMSettings(project="proj/../../other"), VERTEX_ENV, "project"),
        (LLMSettings(api_base="ftp://host"), VERTEX_ENV, "http"),
        (LLMSettings(api_base="localhost:8000"), VERTEX_ENV, "http"),
    ],
)
def test_invalid_settings(settings: LLMSettings, env: dict[str, str], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        resolve_model("google/gemini-2.5-pro", settings, env)


def test_credentials_in_the_api_base_are_refused_without_echoing_them() -> None:
    with pytest.raises(ConfigError) as info:
        resolve_model("openai:gpt-4.1", LLMSettings(api_base="https://user:hunter2@proxy"), {})
    assert "hunter2" not in str(info.value)


@pytest.mark.parametrize(
    ("model", "variable"),
    [("openai:gpt-4.1", "OPENAI_API_KEY"), ("anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
     ("gemini:gemini-2.5-pro", "GEMINI_API_KEY")],
)
def test_missing_api_key_names_the_variable(model: str, variable: str) -> None:
    with pytest.raises(ConfigError, match=f"{variable} or SECREVIEW_API_KEY"):
        resolve_model(model, LLMSettings(), {variable: ""})
    # behind an api_base (a proxy, a local server) a key is optional
    resolve_model(model, LLMSettings(api_base="http://127.0.0.1:1"), {})


@pytest.mark.parametrize(
    ("settings", "env", "sent"),
    [
        (LLMSettings(), {"OPENAI_API_KEY": "vendor"}, "vendor"),
        (LLMSettings(), {"OPENAI_API_KEY": "vendor", "SECREVIEW_API_KEY": "ours"}, "ours"),
        (LLMSettings(api_key="flag"), {"SECREVIEW_API_KEY": "ours"}, "flag"),
    ],
)
def test_api_key_precedence(
    fake_servers: FakeServers, settings: LLMSettings, env: dict[str, str], sent: str
) -> None:
    server = fake_servers.start().queue(Reply(200, openai_completion("ok")))
    retry, _ = fast_retry()
    settings = LLMSettings(api_base=server.url, api_key=settings.api_key)
    model = resolve_model("openai:gpt-4.1", settings, env, retry=retry)
    model.complete(ChatRequest("", [Message.user("hi")], None, max_output_tokens=8))
    assert server.last.headers["authorization"] == f"Bearer {sent}"


def test_vertex_credentials_are_created_lazily(tmp_path: object) -> None:
    env = {"GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_APPLICATION_CREDENTIALS": "/nonexistent/sa.json"}
    retry, _ = fast_retry()
    model = resolve_model("google/gemini-2.5-pro",
                          LLMSettings(api_base="http://127.0.0.1:9"), env, retry=retry)
    with pytest.raises(AuthenticationError, match="GOOGLE_APPLICATION_CREDENTIALS"):
        model.complete(ChatRequest("", [Message.user("hi")], None, max_output_tokens=8))


def test_settings_repr_hides_secrets() -> None:
    settings = LLMSettings(model="openai:gpt-4.1", api_key="sk-very-secret",
                           access_token="ya29.very-secret")
    assert "very-secret" not in repr(settings)
    assert "openai:gpt-4.1" in repr(settings)
