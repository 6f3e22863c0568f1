"""Detect patterns about a dangerous setting (``setting: true``) stand on files the rule's
taint analysis covered: autoescape off, ECB mode, a tar extraction without a filter or an
object-constructing YAML loader is a finding whatever data reaches it, so the flow analysis
(which supersedes a rule's data patterns on the files it read) cannot replace it. Through the
plugin, in a real git repository, with the bundled pack and no model."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable

import pytest

from pytest_secreview.errors import RuleError
from pytest_secreview.rules.parse import parse_rule
from tests.conftest import ReviewRepo

Build = Callable[..., ReviewRepo]

#: (path, text, rule, line): a setting no data flow reaches, in a rule with a taint: section.
SETTINGS = (
    ("mail.py", """\
        from jinja2 import Environment, FileSystemLoader

        ENV = Environment(loader=FileSystemLoader("templates"), autoescape=False)
        """, "xss", 3),
    ("blobs.py", """\
        from Crypto.Cipher import AES


        def seal(key, blob):
            return AES.new(key, AES.MODE_ECB).encrypt(blob)
        """, "weak-cryptography", 5),
    ("themes.py", """\
        import tarfile


        def install(path, target):
            with tarfile.open(path) as tar:
                tar.extractall(target)
        """, "path-traversal", 6),
    ("fixtures.py", """\
        import yaml


        def load(raw):
            return yaml.load(raw, yaml.Loader)
        """, "unsafe-deserialization", 5),
    ("feeds.py", """\
        import xml.sax
        from xml.sax.handler import feature_external_ges


        def reader():
            parser = xml.sax.make_parser()
            parser.setFeature(feature_external_ges, True)
            return parser
        """, "xxe", 7),
)


def test_settings_stand_where_the_taint_analysis_ran(pytester: pytest.Pytester,
                                                     review_repo: Build) -> None:
    review_repo(pr={path: textwrap.dedent(text) for path, text, _, _ in SETTINGS})
    sarif = pytester.path / "review.sarif"
    pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                       "--secreview-rules", ":bundled", f"--secreview-sarif={sarif}")
    found = {(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
              r["locations"][0]["physicalLocation"]["region"]["startLine"])
             for run in json.loads(sarif.read_text())["runs"] for r in run["results"]}
    missing = [(rule, path, line) for path, _, rule, line in SETTINGS
               if (rule, path, line) not in found]
    assert not missing


def test_setting_must_be_a_boolean_named_in_the_error() -> None:
    text = ("---\ntitle: A setting rule\nseverity: high\ncwe: CWE-1\n"
            "detect:\n  - pattern: 'x'\n    message: a setting\n    setting: sometimes\n---\n")
    with pytest.raises(RuleError) as info:
        parse_rule(text.encode(), "rules/bad.md")
    assert "rules/bad.md" in str(info.value) and "setting" in str(info.value)
