"""The one neutralising function for text a pull request or a model wrote, before it reaches
a log line, the terminal or a GitHub Actions log."""

from __future__ import annotations

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


def squeeze(text: str, limit: int) -> str:
    """``text`` with every run of white space (line breaks included) as one space, cut to
    ``limit`` characters with ``…`` marking the cut: another program's message (a server's
    error body, an exception) quoted in one of ours. Not a neutraliser: print it through
    :func:`one_line` like any other untrusted text."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
