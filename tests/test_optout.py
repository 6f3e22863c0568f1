"""``analysis/optout.py``: a line runs only when its function's caller asks for it through a
named parameter (the caller's opt-out), or it does not."""

from __future__ import annotations

import textwrap

import pytest

from pytest_secreview.analysis.optout import parameter_guarded

NAMES = frozenset({"verify", "verify_ssl"})
LINE = "ctx.verify_mode = ssl.CERT_NONE"


def _guarded(code: str) -> bool:
    source = textwrap.dedent(code).strip("\n") + "\n"
    number = next(i for i, text in enumerate(source.splitlines(), 1) if LINE in text)
    return parameter_guarded(source.encode(), number, NAMES)


@pytest.mark.parametrize("code", [
    """
    def send(request, verify, cert=None):
        if verify is False:
            ctx.verify_mode = ssl.CERT_NONE
    """,
    """
    def connect(host, verify=True):
        if not verify:
            ctx.verify_mode = ssl.CERT_NONE
    """,
    """
    def connect(host, verify_ssl: bool = True):
        if os.environ.get("X") and (verify_ssl == False):
            ctx.verify_mode = ssl.CERT_NONE
    """,
    """
    def connect(host, verify="strict"):
        if verify == "strict":
            pass
        elif verify == "none":
            ctx.verify_mode = ssl.CERT_NONE
    """,
    """
    class Adapter:
        def send(self, request, verify):
            if not verify: ctx.verify_mode = ssl.CERT_NONE
    """,
])
def test_a_line_under_the_callers_opt_out_is_guarded(code: str) -> None:
    assert _guarded(code)


@pytest.mark.parametrize("code", [
    # insecure unless the caller says otherwise
    """
    def connect(host, verify=False):
        if not verify:
            ctx.verify_mode = ssl.CERT_NONE
    """,
    # unconditional
    """
    def connect(host, verify):
        ctx.verify_mode = ssl.CERT_NONE
    """,
    # a setting, not the caller
    """
    def connect(host, verify):
        if settings.DEBUG:
            ctx.verify_mode = ssl.CERT_NONE
    """,
    # either the caller or the environment
    """
    def connect(host, verify):
        if not verify or os.environ.get("X"):
            ctx.verify_mode = ssl.CERT_NONE
    """,
    # the function overrides its caller
    """
    def connect(host, verify):
        verify = False
        if not verify:
            ctx.verify_mode = ssl.CERT_NONE
    """,
    # an else branch: not read as an opt-out
    """
    def connect(host, verify):
        if verify:
            pass
        else:
            ctx.verify_mode = ssl.CERT_NONE
    """,
    # a parameter no call-site pattern reports
    """
    def connect(host, insecure):
        if insecure:
            ctx.verify_mode = ssl.CERT_NONE
    """,
    # the enclosing function's parameter, read from a nested function
    """
    def outer(verify):
        def inner(host):
            if not verify:
                ctx.verify_mode = ssl.CERT_NONE
    """,
    # an attribute, not a parameter
    """
    class Client:
        def connect(self):
            if not self.verify:
                ctx.verify_mode = ssl.CERT_NONE
    """,
    # module level
    """
    if not verify:
        ctx.verify_mode = ssl.CERT_NONE
    """,
    # a default that is not a literal
    """
    def connect(host, verify=DEFAULT_VERIFY):
        if not verify:
            ctx.verify_mode = ssl.CERT_NONE
    """,
])
def test_anything_else_is_not_guarded(code: str) -> None:
    assert not _guarded(code)
