"""Triage: which rules run on which changed files, the general review's batches (the coverage
guarantee), and the optional model triage that may add rules (never drop one)."""
