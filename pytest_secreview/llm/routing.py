"""From a model string to a :class:`ChatModel`: DESIGN section 4, "Models".

=========================== ===============================================================
model string                route
=========================== ===============================================================
``google/<m>``              Vertex AI ``…/publishers/google/models/<m>:generateContent``
``anthropic/<m>``           Vertex AI ``…/publishers/anthropic/models/<m>:rawPredict``
any other ``publisher/<m>`` Vertex AI ``…/endpoints/openapi/chat/completions``, model
                            ``publisher/<m>`` (moonshotai, mistralai, meta, deepseek-ai, qwen …)
``openai:<m>``              ``https://api.openai.com/v1/chat/completions`` (``OPENAI_API_KEY``)
``anthropic:<m>``           ``https://api.anthropic.com/v1/messages`` (``ANTHROPIC_API_KEY``)
``gemini:<m>``              ``https://generativelanguage.googleapis.com/v1beta/models/<m>:
                            generateContent`` (``GEMINI_API_KEY``)
=========================== ===============================================================

Vertex AI hosts: ``aiplatform.googleapis.com`` for location ``global``, the multi-region
``aiplatform.us.rep.googleapis.com`` / ``aiplatform.eu.rep.googleapis.com`` for ``us``/``eu``,
``<location>-aiplatform.googleapis.com`` otherwise.

``settings.api_base`` (else ``SECREVIEW_API_BASE``) replaces scheme, host and port on every
route; the route's path is appended. For the OpenAI and Anthropic routes a base URL that already
has a path (``http://localhost:11434/v1``) is taken to include the API version, as their SDKs
do. ``settings.api_key`` (else ``SECREVIEW_API_KEY``) overrides the vendor's key variable. An API
key is required when talking to the vendor itself and optional behind an ``api_base``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, TypedDict
from urllib.parse import urlsplit

from ..errors import ConfigError
from ._wire import join_url
from .anthropic import AnthropicModel
from .auth import ApiKey, NoCredential, StaticBearerToken, shared_google_credential
from .base import ChatModel, LLMSettings
from .credential import Credential
from .gemini import GeminiModel
from .http import RetryPolicy
from .openai import OpenAIChatModel

OPENAI_BASE = "https://api.openai.com"
ANTHROPIC_BASE = "https://api.anthropic.com"
GEMINI_BASE = "https://generativelanguage.googleapis.com"

ACCEPTED_FORMS = (
    "publisher/model for Vertex AI (google/gemini-2.5-pro, anthropic/claude-sonnet-4-5, "
    "moonshotai/kimi-k2-thinking-maas, mistralai/…, meta/…, deepseek-ai/…, qwen/…)",
    "openai:<model> for OpenAI or any OpenAI-compatible server (set SECREVIEW_API_BASE)",
    "anthropic:<model> for the Anthropic API",
    "gemini:<model> for the Gemini Developer API",
)

_PUBLISHER = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
_VERTEX_MODEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]*$")
_LOCATION = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_PROJECT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.:_-]*$")

RouteKind = Literal["vertex", "openai", "anthropic", "gemini"]
_PREFIXED: tuple[RouteKind, ...] = ("openai", "anthropic", "gemini")


@dataclass(frozen=True)
class Route:
    """A parsed model string: ``kind`` of route, Vertex ``publisher`` and the ``model`` name."""

    kind: RouteKind
    model: str
    publisher: str | None = None


class _ModelKwargs(TypedDict):
    model_id: str
    timeout: float
    retry: RetryPolicy


@dataclass(frozen=True)
class _Common:
    """Constructor arguments every adapter takes."""

    model_id: str
    timeout: float
    retry: RetryPolicy

    def kwargs(self) -> _ModelKwargs:
        return {"model_id": self.model_id, "timeout": self.timeout, "retry": self.retry}


def parse_model(model: str) -> Route:
    """Parse a model string; a malformed one is a :class:`ConfigError` listing the forms."""
    text = (model or "").strip()
    for prefix in _PREFIXED:
        if text.startswith(prefix + ":"):
            name = text[len(prefix) + 1:]
            if name and not any(c.isspace() for c in name):
                return Route(prefix, name)
            break
    else:
        publisher, sep, name = text.partition("/")
        if sep and _PUBLISHER.match(publisher) and _VERTEX_MODEL.match(name):
            return Route("vertex", name, publisher)
    forms = "".join(f"\n  - {form}" for form in ACCEPTED_FORMS)
    raise ConfigError(f"model {model!r} is not a model string this plugin understands; use{forms}")


def vertex_base_url(location: str) -> str:
    """The Vertex AI service endpoint for ``location``."""
    if location == "global":
        return "https://aiplatform.googleapis.com"
    if location in ("us", "eu"):
        return f"https://aiplatform.{location}.rep.googleapis.com"
    return f"https://{location}-aiplatform.googleapis.com"


def resolve_model(
    model: str,
    settings: LLMSettings,
    env: Mapping[str, str],
    *,
    retry: RetryPolicy | None = None,
) -> ChatModel:
    """Build the :class:`ChatModel` for ``model`` (see the module docstring for the routes).

    Nothing is sent and no credential is loaded here: Google credentials are created on the
    first call of a Vertex model. Configuration problems raise :class:`ConfigError` naming the
    variable or flag to set. ``retry`` overrides the retry policy (tests use it to avoid real
    waits); by default ``settings.max_attempts`` bounds the attempts.
    """
    route = parse_model(model)
    env = {k: v for k, v in env.items() if v}  # an empty variable counts as unset
    api_base = _api_base(settings, env)
    common = _Common(
        model_id=model.strip(),
        timeout=settings.timeout,
        retry=retry or RetryPolicy(max_attempts=max(1, settings.max_attempts)),
    )
    model = common.model_id
    if route.kind == "vertex":
        return _vertex(route, settings, env, api_base, common)
    if route.kind == "openai":
        base = api_base or OPENAI_BASE
        official = urlsplit(base).hostname == "api.openai.com"
        return OpenAIChatModel(
            url=join_url(base, "/chat/completions", version_prefix="/v1"),
            credential=_api_key(settings, env, "OPENAI_API_KEY", "Authorization", official,
                                model, scheme="Bearer"),
            provider=f"OpenAI-compatible API {model} at {_origin(base)}",
            wire_model=route.model,
            max_tokens_field="max_completion_tokens" if official else "max_tokens",
            **common.kwargs(),
        )
    if route.kind == "anthropic":
        base = api_base or ANTHROPIC_BASE
        return AnthropicModel(
            url=join_url(base, "/messages", version_prefix="/v1"),
            credential=_api_key(settings, env, "ANTHROPIC_API_KEY", "x-api-key",
                                api_base is None, model),
            provider=f"Anthropic API {model} at {_origin(base)}",
            wire_model=route.model,
            vertex=False,
            **common.kwargs(),
        )
    base = api_base or GEMINI_BASE
    return GeminiModel(
        url=join_url(base, f"/v1beta/models/{route.model}:generateContent"),
        credential=_api_key(settings, env, "GEMINI_API_KEY", "x-goog-api-key",
                            api_base is None, model),
        provider=f"Gemini API {model} at {_origin(base)}",
        **common.kwargs(),
    )


def _vertex(
    route: Route,
    settings: LLMSettings,
    env: Mapping[str, str],
    api_base: str | None,
    common: _Common,
) -> ChatModel:
    model = common.model_id
    project = settings.project or env.get("GOOGLE_CLOUD_PROJECT")
    if not project:
        raise ConfigError(
            f"model {model!r} runs on Vertex AI, which needs a Google Cloud project: set "
            "GOOGLE_CLOUD_PROJECT or pass --secreview-project"
        )
    if not _PROJECT.match(project):
        raise ConfigError(f"Google Cloud project {project!r} is not a valid project id")
    location = (settings.location or env.get("GOOGLE_CLOUD_LOCATION") or "global").strip()
    if not _LOCATION.match(location):
        raise ConfigError(
            f"Vertex AI location {location!r} is not valid: use a region such as us-central1, "
            "a multi-region (us, eu) or global (GOOGLE_CLOUD_LOCATION / --secreview-location)"
        )
    base = api_base or vertex_base_url(location)
    credential = _vertex_credential(settings, env)
    prefix = f"/v1/projects/{project}/locations/{location}"
    provider = f"Vertex AI {model} in {project}/{location} at {_origin(base)}"
    publisher = route.publisher
    if publisher == "google":
        return GeminiModel(
            url=join_url(base, f"{prefix}/publishers/google/models/{route.model}:generateContent"),
            credential=credential, provider=provider, **common.kwargs(),
        )
    if publisher == "anthropic":
        return AnthropicModel(
            url=join_url(base, f"{prefix}/publishers/anthropic/models/{route.model}:rawPredict"),
            credential=credential, provider=provider, wire_model=route.model, vertex=True,
            **common.kwargs(),
        )
    return OpenAIChatModel(
        url=join_url(base, f"{prefix}/endpoints/openapi/chat/completions"),
        credential=credential, provider=provider, wire_model=f"{publisher}/{route.model}",
        max_tokens_field="max_tokens", **common.kwargs(),
    )


def _vertex_credential(settings: LLMSettings, env: Mapping[str, str]) -> Credential:
    if settings.access_token:
        return StaticBearerToken(settings.access_token, "SECREVIEW_ACCESS_TOKEN")
    token = env.get("SECREVIEW_ACCESS_TOKEN")
    if token:
        return StaticBearerToken(token, "SECREVIEW_ACCESS_TOKEN")
    return shared_google_credential(env)


def _api_key(
    settings: LLMSettings,
    env: Mapping[str, str],
    vendor_var: str,
    header: str,
    required: bool,
    model: str,
    *,
    scheme: str | None = None,
) -> Credential:
    if settings.api_key:
        return ApiKey(header, settings.api_key, "SECREVIEW_API_KEY", scheme=scheme)
    for var in ("SECREVIEW_API_KEY", vendor_var):
        if env.get(var):
            return ApiKey(header, env[var], var, scheme=scheme)
    if required:
        raise ConfigError(
            f"model {model!r} needs an API key: set {vendor_var} or SECREVIEW_API_KEY"
        )
    return NoCredential(f"the server asked for credentials: set {vendor_var} or SECREVIEW_API_KEY")


def _api_base(settings: LLMSettings, env: Mapping[str, str]) -> str | None:
    base = (settings.api_base or env.get("SECREVIEW_API_BASE") or "").strip()
    if not base:
        return None
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(
            f"API base {base!r} is not an http(s) URL: set SECREVIEW_API_BASE / "
            "--secreview-api-base to something like http://127.0.0.1:8000 or https://proxy/v1"
        )
    if parts.username or parts.password or parts.query:
        raise ConfigError(
            "put credentials in SECREVIEW_API_KEY, not in the API base URL (SECREVIEW_API_BASE)"
        )
    return base.rstrip("/")


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"
