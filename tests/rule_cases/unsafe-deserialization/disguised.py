"""Deserializers behind constant disguises: each reads as its plain form."""

import importlib

from flask import request


def restore(data: bytes, text: str) -> object:
    # ruleid: unsafe-deserialization
    importlib.import_module('pickle').loads(data)
    # ruleid: unsafe-deserialization
    getattr(__import__('pic' + 'kle'), 'loads')(request.data)
    # ruleid: unsafe-deserialization
    getattr(importlib.import_module('mar' 'shal'), 'loads')(data)
    # ok: unsafe-deserialization
    return importlib.import_module('json').loads(text)
