"""The one decision (``core.decide``): its rules one by one, the record's JSON round trip, and a
property test feeding random lowering attempts from every origin, applied to random targets
(as the base had them, or changed or created by the pull request), through ``decide``."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_secreview.core.decide import Outcome, Policy, decide, judge_exclusion
from pytest_secreview.core.findings import FACT_CATEGORIES, Finding
from pytest_secreview.core.record import (
    CONFIRMED,
    DETERMINISTIC,
    DISMISSED,
    SEEN_BY_SOURCE,
    TRUSTED,
    Answer,
    Change,
    ChangeKind,
    ItemRecord,
    Origin,
    Target,
    min_confidence_changes,
    provenance,
)
from pytest_secreview.core.severity import Severity
from pytest_secreview.evaluation.evaluate import Evaluation
from pytest_secreview.evaluation.record import item_record

HIGH = Policy(fail_on=Severity.HIGH)


def _finding(severity: Severity = Severity.CRITICAL, source: str = "pattern",
             category: str | None = "deserialization", line: int = 3) -> Finding:
    return Finding(rule="r", severity=severity, title="t", path="app.py", line=line,
                   source=source, category=category).with_fingerprint(f"line {line}")


def _record(finding: Finding, *changes: Change, **more: object) -> ItemRecord:
    return ItemRecord(nodeid="rules/r.md::r[app.py]", rule="r", path="app.py",
                      findings=(finding,), changes=changes, **more)  # type: ignore[arg-type]


def test_a_models_dismissal_of_a_pattern_finding_at_the_threshold_is_refused() -> None:
    finding = _finding()
    verdict = decide(_record(finding, Change(finding.fingerprint, ChangeKind.DISMISS,
                                             Origin.MODEL, "test-only code")), HIGH)
    assert verdict.outcome is Outcome.FAILED
    (decided,) = verdict.failing
    assert decided.triage == "overruled" and decided.triage_reason == "test-only code"
    assert "never lowers a deterministic finding" in decided.overruled
    assert [r.change.kind for r in verdict.refused] == [ChangeKind.DISMISS]


def test_below_the_threshold_a_models_dismissal_mutes() -> None:
    finding = _finding(Severity.MEDIUM)
    verdict = decide(_record(finding, Change(finding.fingerprint, ChangeKind.DISMISS,
                                             Origin.MODEL, "dead code")), HIGH)
    assert verdict.outcome is Outcome.PASSED
    assert verdict.findings[0].dismissed and verdict.refused == ()


def test_the_verifier_may_dismiss_a_models_own_finding() -> None:
    finding = _finding(source="model:m")
    verdict = decide(_record(finding, Change(finding.fingerprint, ChangeKind.DISMISS,
                                             Origin.VERIFIER, "sanitised")), HIGH)
    assert verdict.outcome is Outcome.PASSED and verdict.findings[0].dismissed


def test_a_suppression_the_pull_request_adds_awaits_a_maintainer() -> None:
    finding = _finding()
    pr = Change(finding.fingerprint, ChangeKind.SUPPRESS, Origin.PR_COMMENT, "fine")
    verdict = decide(_record(finding, pr), HIGH)
    assert verdict.outcome is Outcome.FAILED
    assert "awaits a maintainer" in verdict.failing[0].overruled
    maintainer = Change(finding.fingerprint, ChangeKind.SUPPRESS, Origin.MAINTAINER_COMMENT,
                        "fine")
    verdict = decide(_record(finding, maintainer), HIGH)
    assert verdict.outcome is Outcome.PASSED
    assert verdict.findings[0].suppression == "inline" and verdict.findings[0].suppression_added


def test_a_credential_is_quieted_only_by_the_base_revision() -> None:
    key = _finding(category="secrets")
    for origin in (Origin.MAINTAINER_COMMENT, Origin.PR_COMMENT, Origin.MODEL, Origin.DEFAULTS):
        change = Change(key.fingerprint, ChangeKind.SUPPRESS, origin, "test key")
        assert decide(_record(key, change), HIGH).outcome is Outcome.FAILED, origin
    baseline = Change(key.fingerprint, ChangeKind.BASELINE, Origin.BASELINE, "known test key")
    assert decide(_record(key, baseline), HIGH).outcome is Outcome.PASSED


def test_a_dismissal_below_the_threshold_does_not_survive_a_raise_to_it() -> None:
    finding = _finding(Severity.MEDIUM)
    dismiss = Change(finding.fingerprint, ChangeKind.DISMISS, Origin.MODEL, "dead code")
    raise_ = Change(finding.fingerprint, ChangeKind.SEVERITY, Origin.SETTINGS,
                    severity=Severity.CRITICAL)
    assert decide(_record(finding, dismiss, raise_), HIGH).outcome is Outcome.FAILED


def test_outcomes_without_a_finding_that_counts() -> None:
    finding = _finding(Severity.LOW)
    assert decide(_record(finding), HIGH).outcome is Outcome.PASSED
    assert decide(_record(finding, error="boom"), HIGH).outcome is Outcome.ERROR
    skip_errors = Policy(Severity.HIGH, on_error="skip")
    assert decide(_record(finding, error="boom"), skip_errors).outcome is Outcome.SKIPPED
    unreviewed = _record(finding, not_reviewed="no model")
    assert decide(unreviewed, HIGH).outcome is Outcome.SKIPPED
    assert decide(unreviewed, Policy(Severity.HIGH, unreviewed="fail")).outcome is \
        Outcome.UNREVIEWED_FAILED
    assert decide(_record(_finding(), error="boom"), HIGH).outcome is Outcome.FAILED


def test_exclusions_come_from_trusted_origins_and_never_hide_credentials() -> None:
    assert judge_exclusion("injection", Origin.BASE_IGNORE, "ignored by the base").excluded
    assert judge_exclusion("injection", Origin.DEFAULTS, "vendored").excluded
    assert not judge_exclusion("injection", Origin.PR_FILES, "the PR's ignore file").excluded
    refused = judge_exclusion("secrets", Origin.BASE_IGNORE, "minified")
    assert not refused.excluded and "credential rules" in refused.reason


def test_a_record_round_trips_through_json() -> None:
    finding = _finding()
    record = _record(finding, Change(finding.fingerprint, ChangeKind.SEVERITY, Origin.MODEL,
                                     "worse", severity=Severity.HIGH, confidence=0.5),
                     mode="native", usage={"model_calls": 1}, not_reviewed="x", cached=True,
                     paths=("a.py", "b.py"), assessments=({"model": "m"},))
    assert ItemRecord.from_json(record.to_json()) == record
    assert record.to_json()["changes"][0]["trusted"] is False


def test_an_answer_becomes_changes_of_the_origin_its_finding_gives_and_nothing_else_does(
) -> None:
    """A second look's answer is made changes with the origin the finding's provenance gives
    (the triage of a deterministic finding: ``model``), with reuse recorded; a suppression or
    a min-confidence mark a producer or a cache left on the finding is dropped by the record
    builder (only the judges' changes and ``decide`` set those)."""
    finding = _finding(source="pattern+model:m")
    answer = Answer(DISMISSED, "no", reused_from="other item")
    assert [(c.kind, c.origin) for c in answer.changes(finding)] == [
        (ChangeKind.DISMISS, Origin.MODEL), (ChangeKind.REUSE, Origin.CACHE)]
    model_only = _finding(source="model:m")
    assert [(c.kind, c.origin) for c in Answer(CONFIRMED, "real", severity=Severity.LOW)
            .changes(model_only)] == [(ChangeKind.CONFIRM, Origin.VERIFIER),
                                      (ChangeKind.SEVERITY, Origin.VERIFIER)]
    flagged = Finding(**{**finding.__dict__, "triage": "dismissed", "triage_reason": "no",
                         "suppression": "inline", "suppression_added": True,
                         "below_min_confidence": True})
    record = item_record("n", Evaluation((flagged,), "native"), rule="r", path="a.py")
    assert record.findings == (finding,) and record.changes == ()
    assert decide(record, HIGH).findings[0] == finding


def test_a_stored_answer_cannot_claim_an_origin_or_a_severity_with_a_dismissal() -> None:
    assert Answer.from_json({"state": "dismissed", "reason": "r", "origin": "baseline",
                             "severity": "low"}) == Answer(DISMISSED, "r")
    assert Answer.from_json({"state": "unchecked", "reason": "r"}) is None
    assert Answer.from_json(["dismissed"]) is None


def test_min_confidence_is_a_change_of_the_settings() -> None:
    low = Finding(**{**_finding().__dict__, "confidence": 0.2})
    unstated = Finding(**{**_finding(line=4).__dict__, "confidence": None})
    (change,) = min_confidence_changes((low, unstated), 0.5)
    assert (change.fingerprint, change.kind, change.origin) == (
        low.fingerprint, ChangeKind.MIN_CONFIDENCE, Origin.SETTINGS)
    assert min_confidence_changes((low,), None) == ()
    verdict = decide(_record(low, change), HIGH)
    assert verdict.outcome is Outcome.PASSED and verdict.findings[0].muted


def test_of_several_suppressions_the_base_s_own_word_holds_and_the_rest_are_moot() -> None:
    """A comment the base already had over the statement holds before the base's baseline,
    which holds before a comment the pull request adds; once one is accepted the others are
    neither applied nor shown as refused."""
    finding = _finding()
    key = finding.fingerprint
    pr = Change(key, ChangeKind.SUPPRESS, Origin.PR_COMMENT, "trust me", target=Target.CHANGED)
    baseline = Change(key, ChangeKind.BASELINE, Origin.BASELINE, "accepted in SEC-7")
    base = Change(key, ChangeKind.SUPPRESS, Origin.BASE_COMMENT, "constant argument")
    decided = decide(_record(finding, pr, baseline), HIGH)
    assert (decided.findings[0].suppression, decided.refused) == ("baseline", ())
    assert decided.findings[0].overruled == ""
    decided = decide(_record(finding, baseline, pr, base), HIGH)
    assert decided.findings[0].suppression_reason == "constant argument"
    decided = decide(_record(finding, pr), HIGH)
    assert decided.outcome is Outcome.FAILED and len(decided.refused) == 1


def test_nothing_from_a_cache_lowers_a_finding_at_the_threshold() -> None:
    finding = _finding(source="model:m")
    for kind in (ChangeKind.DISMISS, ChangeKind.MIN_CONFIDENCE, ChangeKind.BASELINE):
        verdict = decide(_record(finding, Change(finding.fingerprint, kind, Origin.CACHE)), HIGH)
        assert verdict.outcome is Outcome.FAILED, kind


# --- the invariant, on random lowering attempts ------------------------------------------

_SOURCES = st.sampled_from(["pattern", "taint", "scanner:bandit", "model:m", "pattern+model:m"])
_CHANGE = st.builds(
    lambda kind, origin, severity, target: (kind, origin, severity, target),
    st.sampled_from(list(ChangeKind)), st.sampled_from(list(Origin)),
    st.sampled_from(list(Severity)), st.sampled_from(list(Target)))


def _counts(record: ItemRecord, policy: Policy) -> bool:
    return bool(decide(record, policy).failing)


@settings(max_examples=400, deadline=None)
@given(severity=st.sampled_from(list(Severity)), source=_SOURCES,
       category=st.sampled_from([None, "injection", *sorted(FACT_CATEGORIES)]),
       fail_on=st.sampled_from(list(Severity)), attempts=st.lists(_CHANGE, max_size=6))
def test_nothing_the_pull_request_controls_lowers_a_finding_at_the_threshold(
        severity: Severity, source: str, category: str | None, fail_on: Severity,
        attempts: list[tuple[ChangeKind, Origin, Severity, Target]]) -> None:
    finding = _finding(severity, source, category)
    changes = tuple(Change(finding.fingerprint, kind, origin, "because",
                           severity=new if kind is ChangeKind.SEVERITY else None,
                           target=target)
                    for kind, origin, new, target in attempts)
    policy = Policy(fail_on=fail_on)
    model_only = not provenance(finding) & DETERMINISTIC
    model_origins = {Origin.MODEL, Origin.VERIFIER}

    def seen(change: Change) -> bool:
        # A source that speaks for the base revision applies to what the base had.
        return change.origin not in SEEN_BY_SOURCE or change.target is Target.BASE

    def allowed(change: Change) -> bool:
        # What may lower at the threshold: trusted origins on what they saw, and for a
        # model's own finding a model's answer.
        return (change.origin in TRUSTED and seen(change)) or (
            model_only and change.origin in model_origins)

    trusted_only = _record(finding, *(c for c in changes if allowed(c)))
    everything = _record(finding, *changes)
    # Adding what the pull request controls never turns a failing finding into a passing one.
    if _counts(trusted_only, policy):
        assert _counts(everything, policy)
    # With no allowed lowering at all, a finding at the threshold fails whatever was tried.
    if severity.at_least(fail_on) and not any(allowed(c) and c.lowers(finding)
                                              for c in changes):
        assert _counts(everything, policy)
    # A credential is lowered by nothing but the base revision's baseline, its existing
    # comments (on what the base had), the settings and the job's own hooks.
    if category in FACT_CATEGORIES and severity.at_least(fail_on) and not any(
            c.origin in (Origin.BASELINE, Origin.BASE_COMMENT, Origin.SETTINGS,
                         Origin.CONFTEST) and seen(c)
            for c in changes):
        assert _counts(everything, policy)
    # Whatever the pull request made, a base source's lowering of it is refused at the
    # threshold (while nothing allowed has lowered the finding below it), and says so.
    if severity.at_least(fail_on) and not any(allowed(c) and c.lowers(finding)
                                              for c in changes):
        refused = {r.change for r in decide(everything, policy).refused}
        for change in changes:
            if change.lowers(finding) and not seen(change):
                assert change in refused


@settings(max_examples=200, deadline=None)
@given(category=st.sampled_from([None, "injection", *sorted(FACT_CATEGORIES)]),
       origin=st.sampled_from(list(Origin)), chosen=st.sampled_from(["", "the PR adds it"]))
def test_only_trusted_origins_exclude_and_never_a_credential_rule(
        category: str | None, origin: Origin, chosen: str) -> None:
    judged = judge_exclusion(category, origin, "vendored", chosen_by_pr=chosen)
    if judged.excluded:
        assert origin in TRUSTED and category not in FACT_CATEGORIES and not chosen
    if origin in (Origin.PR_FILES, Origin.PR_COMMENT, Origin.MODEL, Origin.CACHE):
        assert not judged.excluded
