"""The bottom layer: what an item found and what it decides, defined once.

``severity`` (the scale and the one order of everything reported), ``findings`` (the
:class:`~.findings.Finding` every check produces), ``record`` (an item's whole result: its
findings as found, every change made to them afterwards with where it came from, and the
rest of what the item did) and ``decide`` (the one function that turns a record and the
trusted settings into the outcome, and the one judgement of path exclusions).

This package imports nothing else of ``pytest_secreview`` (``tests/test_architecture.py``
checks it): every layer above may use it, and nothing it decides can depend on them.
"""
