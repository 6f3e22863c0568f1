"""``secreview comment --interactive`` (issue 15, item 4): y/n/q per comment, driven through a
real pseudo-terminal, against the fake GitHub server; refused without a terminal."""

from __future__ import annotations

import os
import select
import subprocess
from pathlib import Path

from tests.conftest import ReviewRepo
from tests.fake_github import make_token
from tests.test_phases import (
    PHASED,
    SCRIPT,
    fake_github,
    github_env,
    phases_up_to_evaluate,
    project,  # noqa: F401 - the fixture
    secreview,
    writes,
)

PROMPTS = (b"[q]uit: ", b"Please answer y, n or q: ")


def drive(repo: Path, args: list[str], answers: list[str], env: dict[str, str]
          ) -> tuple[int, str]:
    """Run the script on a pseudo-terminal, typing one answer per prompt it shows."""
    master, slave = os.openpty()
    clean = {k: v for k, v in os.environ.items()
             if k not in ("PYTHONPATH", "PYTEST_ADDOPTS")
             and not k.startswith(("SECREVIEW", "GITHUB_"))}
    proc = subprocess.Popen([str(SCRIPT), *args], cwd=repo, env={**clean, **env},
                            stdin=slave, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    out, typed = b"", 0
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 120)
            assert ready, f"the command stopped answering: {out.decode()}"
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child closed the terminal (Linux answers EIO)
                break
            if not chunk:
                break
            out += chunk
            if sum(out.count(p) for p in PROMPTS) > typed and typed < len(answers):
                os.write(master, (answers[typed] + "\n").encode())
                typed += 1
        return proc.wait(timeout=120), out.decode().replace("\r\n", "\n")
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()


def test_interactive_asks_per_comment_and_posts_only_what_was_approved(
    project: ReviewRepo,  # noqa: F811 - the fixture imported above
) -> None:
    token = make_token()
    with fake_github(project, token) as github:
        env = github_env(github, token)
        phases_up_to_evaluate(project.path, env)
        status, out = drive(project.path, ["comment", "--artifacts", PHASED, "--comment", "all",
                                           "--interactive"], ["maybe", "y", "n", "q"], env)
        posted = writes(github)
        reviews = list(github.review_comments)
        summaries = github.summary_comments()
    assert status == 0, out
    # Three comments asked about (one answer was not y/n/q); q stopped the rest unasked.
    assert out.count("Post this comment? [y]es / [n]o / [q]uit: ") == 3
    assert out.count("Please answer y, n or q: ") == 1
    assert "stopped: no further comment will be posted" in out
    assert [m for m, _path, _body in posted] == ["POST"], "one review, no summary comment"
    assert len(reviews) == 1 and summaries == []
    assert "PR comment: 1 inline comment(s) posted" in out
    assert "PR comment: 4 comment(s) not posted at your request" in out


def test_interactive_is_refused_without_a_terminal(project: ReviewRepo) -> None:  # noqa: F811
    result = secreview(project.path, "comment", "--interactive")
    assert result.returncode == 2
    assert "--interactive needs a terminal" in result.stderr


def test_interactive_and_dry_run_exclude_each_other(project: ReviewRepo) -> None:  # noqa: F811
    result = secreview(project.path, "comment", "--interactive", "--dry-run")
    assert result.returncode == 2 and "use one of them" in result.stderr
