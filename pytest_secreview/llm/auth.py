"""Credentials for model providers: API keys, static bearer tokens, Google ADC.

A credential produces request headers, may refresh itself once after a 401, lists the secret
values that must be scrubbed from any message, and carries a ``hint`` naming what the user
should check. Reprs never show a secret.

Vertex AI tokens come from ``SECREVIEW_ACCESS_TOKEN`` when set, else from Google Application
Default Credentials (a service-account key, a Workload Identity Federation file, gcloud's user
credentials, or the metadata server). Google credentials are loaded lazily, on the first call,
and refreshed under a lock when they expire.

google-auth's own HTTP transport needs the ``requests`` package, which this plugin does not
depend on, so token exchanges go through :class:`HttpxAuthRequest` on the shared httpx client.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Mapping
from typing import Any

import google.auth.transport
import httpx

from .errors import AuthenticationError, ProviderUnavailableError
from .http import shared_client

CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform"
_TOKEN_TIMEOUT = 30.0
_MAX_REMEMBERED_TOKENS = 8


class _FixedCredential:
    """A credential that cannot be refreshed: a 401 is final for it."""

    def refresh_after_unauthorized(self, rejected: Mapping[str, str]) -> bool:
        return False


class ApiKey(_FixedCredential):
    """A static API key sent in one header (``x-api-key``, ``Authorization: Bearer`` ...)."""

    def __init__(self, header: str, key: str, env_var: str, *, scheme: str | None = None) -> None:
        self._header = header
        self._key = key
        self._scheme = scheme
        self._env_var = env_var

    @property
    def hint(self) -> str:
        return f"check the API key in {self._env_var}"

    def headers(self) -> dict[str, str]:
        value = f"{self._scheme} {self._key}" if self._scheme else self._key
        return {self._header: value}

    def secrets(self) -> tuple[str, ...]:
        return (self._key,)

    def __repr__(self) -> str:
        return f"ApiKey(header={self._header!r}, env_var={self._env_var!r}, key='***')"


class NoCredential(_FixedCredential):
    """No authentication: a local OpenAI-compatible server (Ollama, vLLM) often needs none."""

    def __init__(self, hint: str) -> None:
        self._hint = hint

    @property
    def hint(self) -> str:
        return self._hint

    def headers(self) -> dict[str, str]:
        return {}

    def secrets(self) -> tuple[str, ...]:
        return ()

    def __repr__(self) -> str:
        return "NoCredential()"


class StaticBearerToken(_FixedCredential):
    """A bearer token given by the user (``SECREVIEW_ACCESS_TOKEN``); it cannot be refreshed."""

    def __init__(self, token: str, env_var: str = "SECREVIEW_ACCESS_TOKEN") -> None:
        self._token = token
        self._env_var = env_var

    @property
    def hint(self) -> str:
        return (
            f"the token in {self._env_var} was rejected: it may have expired (tokens from "
            "`gcloud auth print-access-token` last one hour) or lack the Vertex AI User role; "
            f"unset {self._env_var} to use Application Default Credentials instead"
        )

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._token}"}

    def secrets(self) -> tuple[str, ...]:
        return (self._token,)

    def __repr__(self) -> str:
        return f"StaticBearerToken(env_var={self._env_var!r}, token='***')"


class _AuthResponse(google.auth.transport.Response):
    def __init__(self, response: httpx.Response) -> None:
        self._response = response

    @property
    def status(self) -> int:
        return self._response.status_code

    @property
    def headers(self) -> Mapping[str, str]:
        return self._response.headers

    @property
    def data(self) -> bytes:
        return self._response.content


class HttpxAuthRequest(google.auth.transport.Request):
    """google-auth's transport interface, implemented on the shared httpx client."""

    def __call__(
        self,
        url: str,
        method: str = "GET",
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        **kwargs: Any,
    ) -> _AuthResponse:
        from google.auth import exceptions

        try:
            response = shared_client().request(
                method,
                url,
                content=body,
                headers=dict(headers or {}),
                timeout=timeout or _TOKEN_TIMEOUT,
            )
        except httpx.HTTPError as exc:
            # google-auth retries TransportError itself where it makes sense.
            raise exceptions.TransportError(  # type: ignore[no-untyped-call]
                f"{type(exc).__name__} calling {url}"
            ) from exc
        return _AuthResponse(response)


_ADC_HINT = (
    "set SECREVIEW_ACCESS_TOKEN, or point GOOGLE_APPLICATION_CREDENTIALS at a service-account or "
    "Workload Identity Federation file, or run `gcloud auth application-default login`; the "
    "account needs the Vertex AI User role (roles/aiplatform.user) on the project"
)


class GoogleCredential:
    """Bearer tokens from Google Application Default Credentials, loaded on first use.

    ``env`` supplies ``GOOGLE_APPLICATION_CREDENTIALS``; without it, gcloud's
    application-default file and then the metadata server are tried, as ``google.auth.default``
    does. Tokens are refreshed under a lock shortly before they expire, and once more when the
    provider answers 401 (a token revoked or rotated early).
    """

    def __init__(
        self, env: Mapping[str, str], *, scopes: tuple[str, ...] = (CLOUD_PLATFORM_SCOPE,)
    ) -> None:
        self._file = env.get("GOOGLE_APPLICATION_CREDENTIALS") or None
        self._scopes = list(scopes)
        self._lock = threading.Lock()
        self._creds: Any = None
        self._issued: list[str] = []

    @property
    def hint(self) -> str:
        source = f"GOOGLE_APPLICATION_CREDENTIALS={self._file}" if self._file else "ADC"
        return f"Google credentials ({source}) were rejected: {_ADC_HINT}"

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token()}"}

    def token(self) -> str:
        """A valid access token, loading credentials and refreshing as needed."""
        with self._lock:
            if self._creds is None:
                self._creds = self._load()
            if not self._creds.valid:
                self._refresh()
            return str(self._creds.token)

    def refresh_after_unauthorized(self, rejected: Mapping[str, str]) -> bool:
        with self._lock:
            if self._creds is None:
                return False
            current = f"Bearer {self._creds.token}"
            if rejected.get("Authorization") == current:
                self._refresh()
            # Either we refreshed or another thread already did: a retry is worth it.
            return True

    def secrets(self) -> tuple[str, ...]:
        with self._lock:
            return tuple(self._issued)

    def _load(self) -> Any:
        import google.auth
        from google.auth import exceptions

        path = self._file or _gcloud_adc_file()
        if path:
            return _credentials_from_file(path, self._scopes)
        try:
            creds, _ = google.auth.default(scopes=self._scopes, request=HttpxAuthRequest())
        except exceptions.DefaultCredentialsError as exc:
            raise AuthenticationError(
                f"no usable Google credentials for Vertex AI ({_first_line(exc)}): {_ADC_HINT}",
                provider="Google credentials",
            ) from None
        return creds

    def _refresh(self) -> None:
        from google.auth import exceptions

        try:
            self._creds.refresh(HttpxAuthRequest())
        except exceptions.RefreshError as exc:
            raise AuthenticationError(
                f"refreshing the Google access token failed ({self._scrub(_first_line(exc))}): "
                f"{_ADC_HINT}",
                provider="Google credentials",
            ) from None
        except exceptions.TransportError as exc:
            raise ProviderUnavailableError(
                f"the Google token endpoint is unreachable ({_first_line(exc)}); "
                "retry later or set SECREVIEW_ACCESS_TOKEN",
                provider="Google credentials",
            ) from None
        token = str(self._creds.token)
        if token not in self._issued:
            self._issued = [*self._issued, token][-_MAX_REMEMBERED_TOKENS:]

    def _scrub(self, text: str) -> str:
        for secret in self._issued:
            text = text.replace(secret, "[REDACTED]")
        return text

    def __repr__(self) -> str:
        source = self._file or "application-default"
        return f"GoogleCredential(source={source!r})"


_AWS_SUBJECT_TYPE = "urn:ietf:params:aws:token-type:aws4_request"


def _credentials_from_file(path: str, scopes: list[str]) -> Any:
    """Load a credentials file with the loader for its ``type``.

    Type-specific loaders rather than ``google.auth.load_credentials_from_file``: google-auth
    deprecates the generic loader (it accepts any type from a possibly untrusted file), and for
    Workload Identity Federation it would import ``requests`` and look up the project over the
    network.
    """
    try:
        with open(path, encoding="utf-8") as handle:
            info = json.load(handle)
    except OSError as exc:
        raise AuthenticationError(
            f"cannot read the Google credentials file {path} ({exc.strerror}): check "
            "GOOGLE_APPLICATION_CREDENTIALS",
            provider="Google credentials",
        ) from None
    except ValueError:
        raise AuthenticationError(
            f"the Google credentials file {path} is not JSON: check GOOGLE_APPLICATION_CREDENTIALS",
            provider="Google credentials",
        ) from None
    kind = info.get("type") if isinstance(info, dict) else None
    loader = _loader_for(kind, info)
    if loader is None:
        raise AuthenticationError(
            f"the Google credentials file {path} has type {kind!r}, which is not supported: use "
            "a service_account, external_account (Workload Identity Federation), authorized_user "
            "or impersonated_service_account file",
            provider="Google credentials",
        )
    load, takes_scopes = loader
    try:
        return load(info, scopes=scopes) if takes_scopes else load(info)
    except (ValueError, KeyError, TypeError) as exc:
        raise AuthenticationError(
            f"the Google credentials file {path} ({kind}) is invalid: {_first_line(exc)}",
            provider="Google credentials",
        ) from None


def _loader_for(kind: object, info: dict[str, Any]) -> tuple[Callable[..., Any], bool] | None:
    """The google-auth constructor for a credentials file's ``type``, and whether it takes
    scopes. User credentials take none: they carry the scopes they were granted, and asking for
    others fails with invalid_scope (``google.auth.default`` behaves the same)."""
    if kind == "service_account":
        from google.oauth2 import service_account

        return service_account.Credentials.from_service_account_info, True
    if kind == "external_account":
        source = info.get("credential_source")
        if info.get("subject_token_type") == _AWS_SUBJECT_TYPE:
            from google.auth import aws

            return aws.Credentials.from_info, True
        if isinstance(source, dict) and source.get("executable") is not None:
            from google.auth import pluggable

            return pluggable.Credentials.from_info, True
        from google.auth import identity_pool

        return identity_pool.Credentials.from_info, True
    if kind == "authorized_user":
        from google.oauth2 import credentials

        return credentials.Credentials.from_authorized_user_info, False
    if kind == "impersonated_service_account":
        from google.auth import impersonated_credentials

        return impersonated_credentials.Credentials.from_impersonated_service_account_info, True
    if kind == "external_account_authorized_user":
        from google.auth import external_account_authorized_user

        return external_account_authorized_user.Credentials.from_info, False
    return None


def _gcloud_adc_file() -> str | None:
    """gcloud's application-default credentials file, when it exists."""
    config_dir = os.environ.get("CLOUDSDK_CONFIG")
    if not config_dir:
        if os.name == "nt":
            config_dir = os.path.join(os.environ.get("APPDATA", ""), "gcloud")
        else:
            config_dir = os.path.join(os.path.expanduser("~"), ".config", "gcloud")
    path = os.path.join(config_dir, "application_default_credentials.json")
    return path if os.path.isfile(path) else None


def _first_line(exc: BaseException) -> str:
    text = str(exc.args[0]) if exc.args else type(exc).__name__
    line = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return line[:300]


_GOOGLE_CREDENTIALS: dict[str | None, GoogleCredential] = {}
_GOOGLE_CREDENTIALS_LOCK = threading.Lock()


def shared_google_credential(env: Mapping[str, str]) -> GoogleCredential:
    """One :class:`GoogleCredential` per credentials source and process.

    Sharing it means every Vertex model in a pytest worker reuses one token instead of
    fetching its own.
    """
    key = env.get("GOOGLE_APPLICATION_CREDENTIALS") or None
    with _GOOGLE_CREDENTIALS_LOCK:
        credential = _GOOGLE_CREDENTIALS.get(key)
        if credential is None:
            credential = _GOOGLE_CREDENTIALS[key] = GoogleCredential(env)
        return credential

