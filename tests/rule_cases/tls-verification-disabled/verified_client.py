"""Verification stays on, with a private CA: nothing for the rule to report."""

import ssl

import requests

CA_BUNDLE = "/etc/ssl/certs/internal-ca.pem"


def fetch(url: str) -> bytes:
    return requests.get(url, verify=CA_BUNDLE, timeout=10).content


def context() -> ssl.SSLContext:
    return ssl.create_default_context(cafile=CA_BUNDLE)
