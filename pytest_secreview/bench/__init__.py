"""Labelled pull-request corpora: the case format, its loader and case-level scoring.

Shared by ``benchmarks/bench_detection.py`` and the ``secreview bench`` command; the format is
documented in ``benchmarks/corpus/README.md``.
"""

from __future__ import annotations

from pathlib import Path

from .corpus import CATEGORIES, Case, Category, CorpusError, Expected, load_case, load_corpus
from .score import CaseResult, CategoryScore, Reported, score_case, summarise

#: The corpus shipped with the package: what ``secreview bench`` runs without a path.
SHIPPED_CORPUS = Path(__file__).resolve().parent / "corpus"

__all__ = [
    "CATEGORIES",
    "SHIPPED_CORPUS",
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
