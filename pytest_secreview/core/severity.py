"""Severities of findings and the one order of everything reported. Kept free of heavy
imports: the options module needs it at plugin load time."""

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


def severity_text(value: object) -> object:
    """The before-validator of every severity field a rule file or a model writes: the text
    in the enum's case (``high``, `` High `` are ``HIGH``); anything else unchanged, for the
    field's own validation to reject with the choices."""
    return value.strip().upper() if isinstance(value, str) else value


def worst_first(severity: Severity, path: str, line: int, *ties: str
                ) -> tuple[int, str, int, tuple[str, ...]]:
    """The one ordering of everything reported: worst severity first, then by location, then
    by ``ties`` (rule, title, fingerprint ...) so equal locations still sort stably."""
    return (-severity.rank, path, line, ties)


__all__ = ["Severity", "severity_text", "worst_first"]
