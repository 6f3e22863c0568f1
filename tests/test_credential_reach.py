"""Credential rules read every changed file (issue 20, item 3): a key in a minified bundle, a
source map, a vendored or generated file, a lock file is still a leaked key, whatever kind of
file the rest of the review leaves out."""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable

import pytest

from pytest_secreview.rules.loader import bundled_rules_dir
from tests.conftest import ReviewRepo, aws_key_id

Build = Callable[..., ReviewRepo]
SECRETS = (bundled_rules_dir() / "hardcoded-secrets.md").read_text()


def _review(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                              "--secreview-rules", "secreview/rules", *args)


@pytest.mark.parametrize("path", [
    "static/app.min.js", "static/app.js.map", "static/app.bundle.js",
    "vendor/lib/client.js", "gen/api_pb2.py", "web/package-lock.json", "tests/fixtures/conf.py",
])
def test_a_key_in_a_file_the_review_leaves_out_fails_the_run(
    pytester: pytest.Pytester, review_repo: Build, path: str
) -> None:
    key = aws_key_id()
    if path.endswith(".map"):
        content = json.dumps({"version": 3, "sources": ["app.js"],
                              "sourcesContent": [f"const k = '{key}';\n"], "mappings": "AAAA"})
    elif path.endswith(".json"):
        content = json.dumps({"name": "app", "config": {"key": key}}, indent=2)
    else:
        content = "!function(){var a=1;var k='" + key + "';return a}();\n"
    review_repo(pr={path: content}, rules={"hardcoded-secrets": SECRETS})
    result = _review(pytester)
    result.assert_outcomes(failed=1)
    assert "AWS access key id in source" in result.stdout.str()
    assert key not in result.stdout.str()


def test_lock_files_full_of_hashes_stay_quiet(pytester: pytest.Pytester,
                                              review_repo: Build) -> None:
    rng = random.Random(7)
    b64 = string.ascii_letters + string.digits + "+/"

    def digest(n: int) -> str:
        return "".join(rng.choice(b64) for _ in range(n))

    packages = {f"node_modules/js-tokens-{i}": {
        "version": "4.0.0",
        "resolved": f"https://registry.npmjs.org/js-tokens/-/js-tokens-{i}.tgz",
        "integrity": f"sha512-{digest(86)}==", "dev": True} for i in range(20)}
    yarn = "".join(
        f'"secret-handshake@^{i}.0.0":\n  version "{i}.0.0"\n  resolved '
        f'"https://registry.yarnpkg.com/secret-handshake/-/secret-handshake-{i}.0.0.tgz#'
        f'{"".join(rng.choice("0123456789abcdef") for _ in range(40))}"\n'
        f"  integrity sha1-{digest(27)}=\n\n" for i in range(20))
    gosum = "".join(f"github.com/acme/keyring v1.{i}.0 h1:{digest(43)}=\n" for i in range(20))
    review_repo(pr={"package-lock.json": json.dumps({"packages": packages}, indent=2),
                    "yarn.lock": yarn, "go.sum": gosum},
                rules={"hardcoded-secrets": SECRETS})
    result = _review(pytester)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
