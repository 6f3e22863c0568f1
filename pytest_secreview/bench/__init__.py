"""Labelled pull-request corpora: the case format, its loader and case-level scoring.

Shared by ``benchmarks/bench_detection.py`` and the ``secreview bench`` command; the format is
documented in ``benchmarks/corpus/README.md``.
"""

from __future__ import annotations

from .corpus import CATEGORIES, Case, Category, CorpusError, Expected, load_case, load_corpus
from .score import CaseResult, CategoryScore, Reported, score_case, summarise

__all__ = [
    "CATEGORIES",
    "Case",
    "CaseResult",
    "Category",
    "CategoryScore",
    "CorpusError",
    "Expected",
    "Reported",
    "load_case",
    "load_corpus",
    "score_case",
    "summarise",
]
