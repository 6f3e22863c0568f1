"""A client library's transport: verification follows the caller's `verify` argument."""

import os
import ssl

import requests


def pool_kwargs(url: str, verify, client_cert=None) -> dict:
    cert_reqs = "CERT_REQUIRED"
    if verify is False:
        # The caller's documented opt-out, reported where the caller writes it.
        # ok: tls-verification-disabled
        cert_reqs = "CERT_NONE"
    elif isinstance(verify, str):
        return {"ca_certs": verify, "cert_reqs": cert_reqs}
    return {"cert_reqs": cert_reqs, "cert_file": client_cert}


def context(verify_ssl: bool = True) -> ssl.SSLContext:
    ctx = ssl.create_default_context()
    if not verify_ssl:
        # ok: tls-verification-disabled
        ctx.check_hostname = False
        # ok: tls-verification-disabled
        ctx.verify_mode = ssl.CERT_NONE
    return ctx


def insecure_by_default(verify: bool = False) -> ssl.SSLContext:
    ctx = ssl.create_default_context()
    if not verify:
        # The default is the insecure branch: every caller that says nothing gets it.
        # ruleid: tls-verification-disabled
        ctx.verify_mode = ssl.CERT_NONE
    return ctx


def unconditional(verify: bool = True) -> ssl.SSLContext:
    ctx = ssl.create_default_context()
    # ruleid: tls-verification-disabled
    ctx.check_hostname = False
    # ruleid: tls-verification-disabled
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


def from_environment(verify: bool = True) -> ssl.SSLContext:
    ctx = ssl.create_default_context()
    if os.environ.get("SKIP_TLS_CHECKS"):
        # ruleid: tls-verification-disabled
        ctx.verify_mode = ssl.CERT_NONE
    return ctx


def flag_no_call_reports(insecure: bool = False) -> ssl.SSLContext:
    ctx = ssl.create_default_context()
    if insecure:
        # A caller's insecure=True is no pattern's finding: not an opt-out here.
        # ruleid: tls-verification-disabled
        ctx.verify_mode = ssl.CERT_NONE
    return ctx


def overridden(verify: bool = True) -> ssl.SSLContext:
    # ruleid: tls-verification-disabled
    verify = False
    ctx = ssl.create_default_context()
    if not verify:
        # ruleid: tls-verification-disabled
        ctx.verify_mode = ssl.CERT_NONE
    return ctx


def fetch(url: str) -> bytes:
    # The caller's opt-out, hard-coded: reported.
    # ruleid: tls-verification-disabled
    return requests.get(url, verify=False, timeout=10).content
