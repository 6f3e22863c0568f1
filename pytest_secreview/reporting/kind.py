"""What kind of review ran, said first by every summary (terminal, markdown, JSON)."""

from __future__ import annotations

from .review_view import ReviewView


def review_kind(review: ReviewView) -> str | None:
    """The line every summary starts with when no model is configured: the review is the
    deterministic one, and what needs a model was not collected (not skipped, not failed)."""
    if not review.deterministic_review:
        return None
    from ..triage.plan import runs_without_model

    waiting = [r for r in review.rules if not runs_without_model(r)]
    names = ", ".join(r.id for r in waiting[:8]) + (", ..." if len(waiting) > 8 else "")
    left = (f"; {len(waiting)} rule(s) that need a model made no item ({names})"
            if waiting else "")
    return ("deterministic review: no model is configured, so patterns, dataflow and "
            f"scanners ran{left}. Set --secreview-model for the model review")
