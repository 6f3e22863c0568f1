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


# C0 and C1 controls, DEL, and the characters some readers take as a line break (NEL, LINE
# and PARAGRAPH SEPARATOR): none of them may reach a log line raw.
_CONTROL = {code: f"\\x{code:02x}" for code in [*range(0x20), *range(0x7F, 0xA0)]}
_CONTROL.update({0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x2028: "\\u2028",
                 0x2029: "\\u2029"})


def one_line(text: str) -> str:
    """``text`` made safe to print on one log line: the one neutralising function for
    everything a pull request or a model wrote (file names, titles, explanations, reasons).

    Control characters are escaped (``\\n``, ``\\x1b`` ...), so the text can never start a new
    line or drive the terminal; GitHub Actions workflow commands cannot be formed from it
    either: a leading ``:`` (after whitespace, which the runner trims) is written ``\\x3a`` and
    every legacy ``##[`` (matched anywhere in a line) is written ``\\x23#[``. Ordinary text,
    ``std::io`` included, is unchanged.
    """
    text = text.translate(_CONTROL).replace("##[", "\\x23#[")
    stripped = text.lstrip()
    if stripped.startswith(":"):
        text = text[: len(text) - len(stripped)] + "\\x3a" + stripped[1:]
    return text
