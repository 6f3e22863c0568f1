"""Parsing one option value's text (command line, ini or environment): the checks every
``OptionSpec`` in :mod:`.options` shares. Each raises :class:`ValueError` saying what a valid
value is; :func:`.options.load_settings` turns that into a usage error with an example."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

__all__ = ["advisory_source", "choice", "flag", "local_semgrep_config", "non_negative_float",
           "osv_url", "positive_float", "positive_int", "unit_float"]

#: Registry and remote config forms semgrep would fetch over the network.
_SEMGREP_REMOTE_PREFIXES = ("p/", "r/", "s/", "c/", "tr/", "http://", "https://")
_SEMGREP_REMOTE_NAMES = ("auto", "policy", "supply-chain")


def choice(*choices: str) -> Callable[[str], str]:
    """A parser accepting exactly one of ``choices``."""

    def parse(value: str) -> str:
        if value not in choices:
            raise ValueError(f"choose one of {', '.join(choices)}")
        return value

    return parse


def _number(value: str, kind: type[int] | type[float], noun: str) -> float:
    try:
        number = kind(value)
    except ValueError:
        raise ValueError(f"must be {noun}") from None
    if not math.isfinite(number):
        raise ValueError(f"must be a finite number, not {value!r}")
    return number


def positive_int(value: str) -> int:
    """A whole number of at least 1."""
    number = int(_number(value, int, "a whole number"))
    if number < 1:
        raise ValueError("must be a whole number of at least 1")
    return number


def non_negative_float(value: str) -> float:
    """A finite number, 0 or more."""
    number = _number(value, float, "a number")
    if number < 0:
        raise ValueError("must be a finite number, not negative")
    return number


def positive_float(value: str) -> float:
    """A finite number above 0."""
    number = non_negative_float(value)
    if number == 0:
        raise ValueError("must be greater than 0")
    return number


def unit_float(value: str) -> float:
    """A number between 0 and 1 (a confidence)."""
    number = non_negative_float(value)
    if number > 1:
        raise ValueError("must be between 0 and 1")
    return number


def flag(value: str) -> bool:
    """true/false, yes/no, on/off, 1/0 (any case); empty is false."""
    lowered = value.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off", ""}:
        return False
    raise ValueError("use true or false")


def local_semgrep_config(value: str) -> Path:
    """An existing local semgrep rule file or directory, resolved; a registry or remote config
    (``auto``, ``p/...``, a URL) is refused: semgrep runs offline."""
    lowered = value.strip().lower()
    if lowered in _SEMGREP_REMOTE_NAMES or lowered.startswith(_SEMGREP_REMOTE_PREFIXES):
        raise ValueError(
            f"{value!r} is a semgrep registry or remote config; pytest-secreview runs semgrep "
            "offline with local rule files only. Download the rules you want once, commit "
            "them (e.g. .semgrep/rules.yml) and pass that path"
        )
    path = Path(value).expanduser()
    if not path.exists():
        raise ValueError("no such file or directory; name a local semgrep rule file (.yml) or "
                         "a directory of them")
    return path.resolve()


def advisory_source(value: str) -> Path:
    """An existing directory of OSV JSON records, or an OSV ecosystem archive (``.zip``),
    resolved."""
    path = Path(value).expanduser()
    if path.is_dir():
        return path.resolve()
    if path.is_file() and path.suffix.lower() == ".zip":
        return path.resolve()
    if path.exists():
        raise ValueError("not a directory or a .zip archive; name a directory of OSV JSON "
                         "records or the ecosystem's all.zip from OSV "
                         "(https://osv-vulnerabilities.storage.googleapis.com/PyPI/all.zip)")
    raise ValueError("no such directory or archive; name a directory of OSV JSON records or "
                     "the ecosystem's all.zip downloaded from OSV")


_LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")


def osv_url(value: str) -> str:
    """The base URL of an OSV API: https, or http on the loopback interface only (a local
    mirror or a test server); no credentials, query or fragment."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(value.strip())
        host = parts.hostname or ""
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        raise ValueError("not a URL; use https://api.osv.dev") from None
    if parts.scheme not in ("https", "http") or not host:
        raise ValueError("use an https URL such as https://api.osv.dev")
    if parts.scheme == "http" and host not in _LOOPBACK:
        raise ValueError("plain http is accepted for 127.0.0.1 and localhost only; use https")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise ValueError("no credentials, query or fragment in the URL; use the API's base "
                         "URL such as https://api.osv.dev")
    return value.strip().rstrip("/")
