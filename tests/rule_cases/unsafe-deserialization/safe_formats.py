"""Data-only formats: nothing for the rule to report."""

import json

import yaml


def parse(body: bytes, config_text: str):
    payload = json.loads(body)
    config = yaml.safe_load(config_text)
    return payload, config
