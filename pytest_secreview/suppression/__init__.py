"""Keeping the review quiet on purpose: inline suppressions in the code and the baseline of
accepted findings outside it, decided after evaluation (see :mod:`.apply`)."""

from __future__ import annotations

from .apply import SUPPRESSION_RULE, Quiet
from .baseline import Baseline, load_baseline, update_baseline
from .inline import Suppression, parse_line

__all__ = ["SUPPRESSION_RULE", "Baseline", "Quiet", "Suppression", "load_baseline",
           "parse_line", "update_baseline"]
