"""Severities of findings. Kept free of heavy imports: the options module needs it at
plugin load time."""

from __future__ import annotations

from enum import StrEnum


class Severity(StrEnum):
    """How bad a finding is. Ordered: CRITICAL > HIGH > MEDIUM > LOW > INFO."""

    CRITICAL = "CRITICAL"
    HIGH = "HIGH"
    MEDIUM = "MEDIUM"
    LOW = "LOW"
    INFO = "INFO"

    @property
    def rank(self) -> int:
        """Larger is worse: INFO=0 ... CRITICAL=4."""
        return _RANK[self.value]

    def at_least(self, threshold: Severity) -> bool:
        """True when this severity is at or above ``threshold``."""
        return self.rank >= threshold.rank

    @classmethod
    def parse(cls, value: str) -> Severity:
        """Parse a severity case-insensitively; raises ``ValueError`` naming the choices."""
        try:
            return cls(value.strip().upper())
        except ValueError:
            choices = ", ".join(s.value.lower() for s in cls)
            raise ValueError(f"unknown severity {value!r}; choose one of {choices}") from None


_RANK = {"INFO": 0, "LOW": 1, "MEDIUM": 2, "HIGH": 3, "CRITICAL": 4}


def worst_first(severity: Severity, path: str, line: int, *ties: str
                ) -> tuple[int, str, int, tuple[str, ...]]:
    """The one ordering of everything reported: worst severity first, then by location, then
    by ``ties`` (rule, title, fingerprint ...) so equal locations still sort stably."""
    return (-severity.rank, path, line, ties)

_CONTROL = {code: f"\\x{code:02x}" for code in [*range(0x20), 0x7F]}
_CONTROL.update({0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"})


def one_line(text: str) -> str:
    """``text`` with control characters escaped (``\\n``, ``\\x1b`` ...): what a pull request or
    a model wrote can never start a new log line (a GitHub workflow command) or drive the
    terminal."""
    return text.translate(_CONTROL)
