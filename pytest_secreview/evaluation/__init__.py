"""Evaluation of one item: deterministic checks, then the agentic review, then findings."""
