"""pytest-secreview: security rules as pytest test cases for pull-request review."""

__version__ = "0.1.0"
