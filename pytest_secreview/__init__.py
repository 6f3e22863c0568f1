"""pytest-secreview: security rules as pytest test cases for pull-request review.

PYTEST_DONT_REWRITE: the plugin's modules hold no test assertions. Since pytest 9.2 an
editable install marks the plugin's package for assertion rewriting by its entry point,
and a session started inside another one (pytester's in-process runs) would find it already
imported and warn, an error under ``filterwarnings = error``.
"""

__version__ = "0.1.0"
