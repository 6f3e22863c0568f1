from pathlib import Path

EXPORTS = Path("/srv/exports")


def _inside(base: Path, candidate: Path) -> bool:
    return base in candidate.parents


def export_bytes(name: str) -> bytes:
    candidate = EXPORTS / name
    return candidate.read_bytes()
