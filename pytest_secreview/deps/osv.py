"""Known vulnerabilities from OSV records (https://ossf.github.io/osv-schema/).

Two sources, one interface (:class:`AdvisorySource`): a directory of OSV JSON records or
OSV's ecosystem archive (``all.zip``), read offline (:class:`AdvisoryDirectory`); or the OSV
API (:class:`OsvApi`: ``POST /v1/querybatch``, then ``GET /v1/vulns/{id}``), opt-in.

Matching follows the schema: an ``affected`` entry of the package's ecosystem and name
affects a version listed in its ``versions`` or inside one of its ``ECOSYSTEM``/``SEMVER``
ranges, whose events (``introduced``, ``fixed``, ``last_affected``, ``limit``) are walked in
version order; ``GIT`` ranges name commits, not releases, and are not read. A ``withdrawn``
record is ignored. Severity is the record's CVSS v3 (or v2) base score, computed from the
vector, else the database's own word (GitHub's ``database_specific.severity``).

Record text (summaries, ids) is untrusted: callers neutralise it before showing it.
"""

from __future__ import annotations

import json
import math
import re
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..core.severity import Severity
from ..errors import SecreviewError
from .model import normalise
from .versions import parse_version

#: Largest advisory record read (a record is a few kilobytes).
MAX_RECORD_BYTES = 4 << 20
#: Queries per ``querybatch`` request (the API's limit is 1,000).
BATCH = 500
#: Result pages followed per query.
MAX_PAGES = 5
#: Advisory records fetched from the API per run at most.
MAX_FETCHED = 2_000
#: Characters of a record's details kept for a model's reachability look.
MAX_DETAILS = 1_500


class AdvisoryError(SecreviewError):
    """An advisory source cannot be read: the message names it, what is wrong and the fix."""


@dataclass(frozen=True)
class Query:
    """One package version to look up."""

    ecosystem: str
    name: str
    version: str

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.ecosystem, normalise(self.ecosystem, self.name), self.version)


@dataclass(frozen=True)
class Hit:
    """A record that affects a queried version."""

    id: str
    summary: str
    aliases: tuple[str, ...]
    severity: Severity | None
    score: str  # how the severity was found, e.g. "CVSS 3.1 9.8"
    affected: str  # the affected range, as a reader writes it (">=2.0.0, <2.3.1")
    fixed: str | None  # the first fixed version above the queried one
    url: str
    #: The record's details (its long text, cut), for a model's reachability look.
    details: str = ""
    #: The affected entry's ``ecosystem_specific.affected_functions`` (GitHub's records name
    #: them for some advisories), for the same look.
    functions: tuple[str, ...] = ()


class AdvisorySource(Protocol):
    """Where records come from."""

    def records(self, queries: Sequence[Query]) -> dict[tuple[str, str, str], list[dict[str, Any]]]:
        """The records that may concern each query (by :attr:`Query.key`)."""

    def describe(self) -> str:
        """What the source is, for the report (``3 advisory records in DIR``)."""


# -- matching -----------------------------------------------------------------------------

def hits(record: dict[str, Any], query: Query) -> Hit | None:
    """The hit of ``record`` on ``query``, or None (a withdrawn record never hits)."""
    if record.get("withdrawn"):
        return None
    version = parse_version(query.ecosystem, query.version)
    for affected in record.get("affected") or ():
        if not isinstance(affected, dict):
            continue
        package = affected.get("package") or {}
        if not isinstance(package, dict) or str(package.get("ecosystem", "")).split(":")[0] \
                != query.ecosystem or normalise(query.ecosystem, str(package.get("name", ""))) \
                != normalise(query.ecosystem, query.name):
            continue
        listed = [str(v) for v in affected.get("versions") or ()]
        in_list = query.version in listed or (version is not None and any(
            parse_version(query.ecosystem, v) == version for v in listed))
        for range_ in affected.get("ranges") or ():
            if not isinstance(range_, dict) or range_.get("type") not in ("ECOSYSTEM", "SEMVER"):
                continue
            events = [e for e in range_.get("events") or () if isinstance(e, dict)]
            if version is not None and _in_range(query.ecosystem, version, events):
                return _hit(record, query, affected, events, version)
        if in_list:
            return _hit(record, query, affected, [], version)
    return None


def _in_range(ecosystem: str, version: Any, events: list[dict[str, Any]]) -> bool:
    """OSV's evaluation of one range: walk the events in version order; ``introduced`` at or
    below the version opens it, ``fixed`` at or below (or ``last_affected`` below) closes it;
    a version at or above a ``limit`` is outside."""
    opened = False  # an introduced "0" (or one we cannot read: never a false clean)
    keyed: list[tuple[Any, str]] = []
    for event in events:
        for kind in ("introduced", "fixed", "last_affected", "limit"):
            if kind not in event:
                continue
            value = str(event[kind])
            bound = parse_version(ecosystem, value)
            if kind == "introduced" and (value == "0" or bound is None):
                opened = True
            elif bound is not None:  # a fix we cannot read closes nothing; limit "*" none
                keyed.append((bound, kind))
    if any(kind == "limit" and version >= bound for bound, kind in keyed):
        return False
    affected = opened
    for bound, kind in sorted(keyed, key=lambda k: k[0]):
        if kind == "introduced" and version >= bound:
            affected = True
        elif (kind == "fixed" and version >= bound) or (
                kind == "last_affected" and version > bound):
            affected = False
    return affected


def _hit(record: dict[str, Any], query: Query, affected: dict[str, Any],
         events: list[dict[str, Any]], version: Any) -> Hit:
    ident = str(record.get("id", ""))
    severity, score = severity_of(record, affected)
    fixed = _first_fixed(query.ecosystem, affected, version)
    return Hit(
        id=ident,
        summary=str(record.get("summary") or record.get("details") or "")[:300],
        aliases=tuple(str(a) for a in record.get("aliases") or () if isinstance(a, str))[:10],
        severity=severity, score=score,
        affected=_range_text(events) or "listed versions",
        fixed=fixed,
        url=f"https://osv.dev/vulnerability/{ident}",
        details=str(record.get("details") or "")[:MAX_DETAILS],
        functions=_functions(affected),
    )


def _functions(affected: dict[str, Any]) -> tuple[str, ...]:
    specific = affected.get("ecosystem_specific")
    named = specific.get("affected_functions") if isinstance(specific, dict) else None
    if not isinstance(named, list):
        return ()
    return tuple(str(f)[:200] for f in named if isinstance(f, str))[:20]


def _first_fixed(ecosystem: str, affected: dict[str, Any], version: Any) -> str | None:
    """The lowest ``fixed`` version above ``version`` over every range of the entry."""
    found: list[tuple[Any, str]] = []
    for range_ in affected.get("ranges") or ():
        if not isinstance(range_, dict) or range_.get("type") not in ("ECOSYSTEM", "SEMVER"):
            continue
        for event in range_.get("events") or ():
            if isinstance(event, dict) and "fixed" in event:
                parsed = parse_version(ecosystem, str(event["fixed"]))
                if parsed is not None and (version is None or parsed > version):
                    found.append((parsed, str(event["fixed"])))
    return min(found, key=lambda f: f[0])[1] if found else None


def _range_text(events: list[dict[str, Any]]) -> str:
    parts = []
    for event in events:
        for kind, op in (("introduced", ">="), ("fixed", "<"), ("last_affected", "<="),
                         ("limit", "<")):
            if kind in event:
                value = str(event[kind])[:40]
                if not (kind == "introduced" and value == "0"):
                    parts.append(f"{op}{value}")
    return ", ".join(parts) or ("every version" if events else "")


# -- severity -----------------------------------------------------------------------------

_V3_WEIGHTS = {
    "AV": {"N": 0.85, "A": 0.62, "L": 0.55, "P": 0.2}, "AC": {"L": 0.77, "H": 0.44},
    "UI": {"N": 0.85, "R": 0.62}, "C": {"H": 0.56, "L": 0.22, "N": 0.0},
}


def _roundup(value: float) -> float:
    whole = round(value * 100_000)
    return whole / 100_000.0 if whole % 10_000 == 0 else (math.floor(whole / 10_000) + 1) / 10.0


def cvss3_score(vector: str) -> float | None:
    """The CVSS v3.0/v3.1 base score of ``vector``, or None when it is not one."""
    if not vector.startswith(("CVSS:3.0/", "CVSS:3.1/")):
        return None
    metrics = dict(part.split(":", 1) for part in vector.split("/")[1:] if ":" in part)
    try:
        scope_changed = metrics["S"] == "C"
        pr = {"N": 0.85, "L": 0.68 if scope_changed else 0.62,
              "H": 0.5 if scope_changed else 0.27}[metrics["PR"]]
        cia = [_V3_WEIGHTS["C"][metrics[m]] for m in ("C", "I", "A")]
        exploit = 8.22 * _V3_WEIGHTS["AV"][metrics["AV"]] * _V3_WEIGHTS["AC"][metrics["AC"]] \
            * pr * _V3_WEIGHTS["UI"][metrics["UI"]]
    except KeyError:
        return None
    iss = 1 - (1 - cia[0]) * (1 - cia[1]) * (1 - cia[2])
    impact = 7.52 * (iss - 0.029) - 3.25 * (iss - 0.02) ** 15 if scope_changed else 6.42 * iss
    if impact <= 0:
        return 0.0
    total = 1.08 * (impact + exploit) if scope_changed else impact + exploit
    return _roundup(min(total, 10.0))


def cvss2_score(vector: str) -> float | None:
    """The CVSS v2 base score of ``vector`` (``AV:N/AC:L/Au:N/C:P/I:P/A:P``), or None."""
    metrics = dict(part.split(":", 1) for part in vector.split("/") if ":" in part)
    try:
        av = {"L": 0.395, "A": 0.646, "N": 1.0}[metrics["AV"]]
        ac = {"H": 0.35, "M": 0.61, "L": 0.71}[metrics["AC"]]
        au = {"M": 0.45, "S": 0.56, "N": 0.704}[metrics["Au"]]
        c, i, a = ({"N": 0.0, "P": 0.275, "C": 0.660}[metrics[m]] for m in ("C", "I", "A"))
    except KeyError:
        return None
    impact = 10.41 * (1 - (1 - c) * (1 - i) * (1 - a))
    base = ((0.6 * impact) + (0.4 * 20 * av * ac * au) - 1.5) * (0 if impact == 0 else 1.176)
    return round(base, 1)


def severity_of_score(score: float) -> Severity:
    """CVSS qualitative rating: 9.0 critical, 7.0 high, 4.0 medium, above 0 low."""
    if score >= 9.0:
        return Severity.CRITICAL
    if score >= 7.0:
        return Severity.HIGH
    if score >= 4.0:
        return Severity.MEDIUM
    return Severity.LOW if score > 0 else Severity.INFO


_WORDS = {"CRITICAL": Severity.CRITICAL, "HIGH": Severity.HIGH, "MODERATE": Severity.MEDIUM,
          "MEDIUM": Severity.MEDIUM, "LOW": Severity.LOW}


def severity_of(record: dict[str, Any], affected: dict[str, Any] | None = None
                ) -> tuple[Severity | None, str]:
    """The record's severity and how it was found; (None, "") when it states none we read."""
    entries = [*((affected or {}).get("severity") or ()), *(record.get("severity") or ())]
    for kind, scorer, label in (("CVSS_V3", cvss3_score, "CVSS 3"), ("CVSS_V2", cvss2_score,
                                                                      "CVSS 2")):
        for entry in entries:
            if isinstance(entry, dict) and entry.get("type") == kind:
                vector = str(entry.get("score", ""))
                score = scorer(vector)
                if score is not None:
                    return severity_of_score(score), f"{label} base score {score:.1f}"
    for specific in (record.get("database_specific"), (affected or {}).get("database_specific"),
                     (affected or {}).get("ecosystem_specific")):
        if isinstance(specific, dict):
            word = str(specific.get("severity", "")).upper()
            if word in _WORDS:
                return _WORDS[word], f"database severity {word}"
    return None, ""


# -- sources ------------------------------------------------------------------------------

def _name_filter(queries: Sequence[Query]) -> re.Pattern[bytes]:
    """Bytes that a record naming one of ``queries``' packages holds (lower-cased; PyPI
    separators match each other): only those records are parsed."""
    names = sorted({re.escape(normalise(q.ecosystem, q.name)).replace("\\-", "[-_.]+")
                    for q in queries})
    return re.compile(('"(?:' + "|".join(names) + ')"').encode())


def _record(raw: bytes, where: str) -> dict[str, Any]:
    try:
        data = json.loads(raw)
    except ValueError as exc:
        why = " ".join(str(exc).split())[:120]
        raise AdvisoryError(f"advisory file {where} is not valid JSON ({why}); fix or remove "
                            "it (each file holds one OSV record)") from None
    if not isinstance(data, dict) or not isinstance(data.get("id"), str) or not isinstance(
            data.get("affected", []), list):
        raise AdvisoryError(f"advisory file {where} is not an OSV record (an object with an "
                            "'id' string and an 'affected' list); fix or remove it")
    return data


class AdvisoryDirectory:
    """OSV records from local paths: directories of ``*.json`` (searched recursively) and
    OSV's ecosystem archives (``.zip``). Only records that name a queried package are
    parsed (a byte search first), so a whole ecosystem's archive is read quickly."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self.paths = tuple(paths)
        self._read = 0

    def describe(self) -> str:
        return "OSV records in " + ", ".join(str(p) for p in self.paths)

    def _blobs(self) -> Iterable[tuple[str, bytes]]:
        for path in self.paths:
            if path.is_dir():
                try:
                    found = sorted(path.rglob("*.json"))
                except OSError as exc:
                    raise AdvisoryError(f"--secreview-advisories {path}: cannot list the "
                                        f"directory ({exc.strerror}); make it readable") from None
                for file in found:
                    try:
                        if file.stat().st_size > MAX_RECORD_BYTES:
                            raise AdvisoryError(f"advisory file {file} is larger than "
                                                f"{MAX_RECORD_BYTES >> 20} MiB; an OSV record "
                                                "is a few kilobytes: remove it")
                        yield str(file), file.read_bytes()
                    except OSError as exc:
                        raise AdvisoryError(f"advisory file {file} cannot be read "
                                            f"({exc.strerror}); make it readable") from None
            else:
                yield from self._archive(path)

    def _archive(self, path: Path) -> Iterable[tuple[str, bytes]]:
        try:
            with zipfile.ZipFile(path) as archive:
                for info in archive.infolist():
                    if info.is_dir() or not info.filename.endswith(".json"):
                        continue
                    if info.file_size > MAX_RECORD_BYTES:
                        raise AdvisoryError(f"advisory archive {path}: {info.filename} is "
                                            f"larger than {MAX_RECORD_BYTES >> 20} MiB; use "
                                            "the archive OSV publishes")
                    yield f"{path}:{info.filename}", archive.read(info)
        except (OSError, zipfile.BadZipFile) as exc:
            raise AdvisoryError(f"--secreview-advisories {path}: not a readable zip archive "
                                f"({exc}); pass a directory of OSV JSON records or the "
                                "ecosystem's all.zip from OSV") from None

    def records(self, queries: Sequence[Query]) -> dict[tuple[str, str, str], list[dict[str, Any]]]:
        out: dict[tuple[str, str, str], list[dict[str, Any]]] = {q.key: [] for q in queries}
        if not queries:
            return out
        wanted = _name_filter(queries)
        by_name: dict[tuple[str, str], list[Query]] = {}
        for query in queries:
            by_name.setdefault(query.key[:2], []).append(query)
        for where, raw in self._blobs():
            if not wanted.search(raw.lower()):
                continue
            record = _record(raw, where)
            self._read += 1
            for affected in record.get("affected") or ():
                package = affected.get("package") if isinstance(affected, dict) else None
                if not isinstance(package, dict):
                    continue
                ecosystem = str(package.get("ecosystem", "")).split(":")[0]
                for query in by_name.get((ecosystem, normalise(ecosystem, str(
                        package.get("name", "")))), ()):
                    if record not in out[query.key]:
                        out[query.key].append(record)
        return out


class OsvApi:
    """The OSV API at ``base`` (``https://api.osv.dev``): one ``querybatch`` per
    :data:`BATCH` queries (its pages followed), then each record once."""

    def __init__(self, base: str, timeout: float = 30.0) -> None:
        self.base = base.rstrip("/")
        self.timeout = timeout
        self._cache: dict[str, dict[str, Any]] = {}

    def describe(self) -> str:
        return f"the OSV API at {self.base}"

    def _client(self) -> Any:
        import httpx

        return httpx.Client(timeout=httpx.Timeout(self.timeout, connect=10.0),
                            follow_redirects=False, trust_env=False,
                            headers={"User-Agent": "pytest-secreview"})

    def _call(self, client: Any, method: str, path: str, body: Any = None) -> Any:
        import httpx

        url = self.base + path
        try:
            response = client.request(method, url, json=body)
        except httpx.HTTPError as exc:
            raise AdvisoryError(f"--secreview-osv-url {self.base}: {method} {path} failed "
                                f"({type(exc).__name__}: {' '.join(str(exc).split())[:160]}); "
                                "check the URL and the network, or use --secreview-advisories "
                                "DIR offline") from None
        if response.status_code != 200:
            raise AdvisoryError(f"--secreview-osv-url {self.base}: {method} {path} answered "
                                f"HTTP {response.status_code}; check the URL (the OSV API is "
                                "https://api.osv.dev)")
        try:
            return response.json()
        except ValueError:
            raise AdvisoryError(f"--secreview-osv-url {self.base}: {method} {path} did not "
                                "answer JSON; is this the OSV API?") from None

    def records(self, queries: Sequence[Query]) -> dict[tuple[str, str, str], list[dict[str, Any]]]:
        out: dict[tuple[str, str, str], list[dict[str, Any]]] = {q.key: [] for q in queries}
        unique = list({q.key: q for q in queries}.values())
        ids: dict[tuple[str, str, str], list[str]] = {}
        with self._client() as client:
            for start in range(0, len(unique), BATCH):
                pending: list[tuple[Query, str | None]] = [
                    (q, None) for q in unique[start:start + BATCH]]
                for _page in range(MAX_PAGES):
                    body = {"queries": [
                        {"package": {"ecosystem": q.ecosystem, "name": q.name},
                         "version": q.version, **({"page_token": token} if token else {})}
                        for q, token in pending]}
                    results = self._call(client, "POST", "/v1/querybatch", body)
                    rows = results.get("results") if isinstance(results, dict) else None
                    if not isinstance(rows, list) or len(rows) != len(pending):
                        raise AdvisoryError(f"--secreview-osv-url {self.base}: querybatch "
                                            "answered a result list that does not match the "
                                            "queries; is this the OSV API?")
                    again: list[tuple[Query, str | None]] = []
                    for (query, _token), row in zip(pending, rows, strict=True):
                        row = row if isinstance(row, dict) else {}
                        ids.setdefault(query.key, []).extend(
                            str(v["id"]) for v in row.get("vulns") or ()
                            if isinstance(v, dict) and isinstance(v.get("id"), str))
                        if row.get("next_page_token"):
                            again.append((query, str(row["next_page_token"])))
                    if not again:
                        break
                    pending = again
            wanted = sorted({i for found in ids.values() for i in found})[:MAX_FETCHED]
            for ident in wanted:
                if ident not in self._cache:
                    if not re.fullmatch(r"[A-Za-z0-9._:-]{1,100}", ident):
                        continue
                    data = self._call(client, "GET", f"/v1/vulns/{ident}")
                    self._cache[ident] = _record(json.dumps(data).encode(),
                                                 f"{self.base}/v1/vulns/{ident}")
        for key, found in ids.items():
            out[key] = [self._cache[i] for i in dict.fromkeys(found) if i in self._cache]
        return out


def advisory_hits(source: AdvisorySource, queries: Sequence[Query]
                  ) -> dict[tuple[str, str, str], list[Hit]]:
    """Every hit of the source's records on each query, by id, without duplicates (the
    same advisory under a GHSA and a PYSEC id is reported once, under the first id)."""
    records = source.records(queries)
    out: dict[tuple[str, str, str], list[Hit]] = {}
    for query in queries:
        seen: set[str] = set()
        found = []
        for record in sorted(records.get(query.key, ()), key=lambda r: str(r.get("id"))):
            hit = hits(record, query)
            if hit is None or hit.id in seen:
                continue
            seen.update((hit.id, *hit.aliases))
            found.append(hit)
        out[query.key] = found
    return out


def source_from(paths: Sequence[Path], url: str | None) -> AdvisorySource | None:
    """The advisory source the settings name (the directory first), or None."""
    if paths:
        return AdvisoryDirectory(paths)
    if url:
        return OsvApi(url)
    return None
