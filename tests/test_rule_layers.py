"""Rules are paired only with files of the layer they are about: the bundled server-side
rules (SQL injection, command injection, SSRF) make no item for browser scripts under the
usual static-asset directories, which cannot reach a database, a shell or the server's
network; the same code in server code still gets its item."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.conftest import ReviewRepo

Build = Callable[..., ReviewRepo]

SERVER_SIDE = "const out = child_process.exec('ls ' + req.query.dir, {shell: true});\n" \
              "db.query('SELECT * FROM t WHERE id = ' + req.query.id);\n" \
              "const r = await axios.get(req.query.url);\n"
RULES = ("command-injection", "sql-injection", "ssrf")


def test_server_side_rules_skip_browser_scripts_in_static_directories(
    pytester: pytest.Pytester, review_repo: Build
) -> None:
    review_repo(pr={"server/routes.js": SERVER_SIDE,
                    "app/static/js/page.js": SERVER_SIDE,
                    "web/public/bundle.js": SERVER_SIDE,
                    "assets/app.mjs": SERVER_SIDE,
                    # Python under such a directory is server code: still paired.
                    "app/static/handlers.py": "os.system('ls ' + request.args['d'])\n"})
    result = pytester.runpytest("--secreview", "--base", "main", "-p", "no:cacheprovider",
                                "--secreview-rules", ":bundled", "--collect-only", "-q")
    ids = result.stdout.str()
    for rule in RULES:
        assert f"{rule}[server/routes.js]" in ids, rule
        for browser in ("app/static/js/page.js", "web/public/bundle.js", "assets/app.mjs"):
            assert f"{rule}[{browser}]" not in ids, (rule, browser)
    assert "command-injection[app/static/handlers.py]" in ids
