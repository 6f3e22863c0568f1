"""Collection stays cheap: naming the items of a review loads neither the layers that evaluate
them (tools, the model clients, the dataflow analysis, the audit's evidence) nor the report
model. Observed in a fresh pytest process through a plugin that lists what is imported."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.conftest import ReviewRepo

Build = Callable[..., ReviewRepo]

#: Loaded only when an item runs or a report is written.
HEAVY = ("httpx", "pytest_secreview.tools", "pytest_secreview.llm",
         "pytest_secreview.analysis.session", "pytest_secreview.audit.evidence",
         "pytest_secreview.evaluation.review", "pytest_secreview.scanners.session",
         "pytest_secreview.reporting.model")


def test_collect_only_loads_no_evaluation_or_report_layer(pytester: pytest.Pytester,
                                                          review_repo: Build) -> None:
    review_repo(base={"app.py": "x = 1\n"},
                pr={"app.py": "import subprocess\n\n\ndef run(cmd):\n"
                              "    return subprocess.call(cmd, shell=True)\n",
                    "web/view.js": "el.innerHTML = req.query.name;\n"})
    # Untracked, so not part of the diff.
    pytester.makepyfile(importlist="""
        import json, os, sys
        def pytest_unconfigure(config):
            path = os.path.join(str(config.invocation_params.dir), "modules.json")
            with open(path, "w") as out:
                json.dump(sorted(sys.modules), out)
    """)
    result = pytester.runpytest_subprocess("--secreview", "--base", "main", "-p",
                                           "no:cacheprovider", "--collect-only", "-q",
                                           "-p", "importlist")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert "not evaluated (--collect-only)" in result.stdout.str()
    modules = set(json.loads((pytester.path / "modules.json").read_text()))
    assert "pytest_secreview.collection" in modules  # the review did collect
    assert sorted(m for m in modules if m.startswith(HEAVY)) == []
