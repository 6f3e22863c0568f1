"""Code that *handles* PEM text mentions the marker without containing a key."""

MARKER = "{{PRIVATE_KEY_MARKER}}"


def looks_like_key(line: str) -> bool:
    # ok: private-key-committed
    return line.startswith("{{PRIVATE_KEY_MARKER}}")


def fake_blob() -> str:
    # ok: private-key-committed
    return "{{PRIVATE_KEY_MARKER}}\n" + "A" * 64
