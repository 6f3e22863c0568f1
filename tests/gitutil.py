"""A tiny driver for real temporary git repositories used across the test suite."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
}


class GitRepo:
    """A real git repository in ``path`` with helpers to write files and commit."""

    def __init__(self, path: Path, branch: str = "main") -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", branch)
        self.git("config", "commit.gpgsign", "false")
        self.git("config", "core.autocrlf", "false")

    def git(self, *args: str) -> str:
        """Run git in the repository and return its stdout (raises on failure)."""
        env = {**os.environ, **_ENV, "HOME": str(self.path.parent)}
        proc = subprocess.run(
            ["git", *args], cwd=self.path, env=env, capture_output=True, check=False
        )
        if proc.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)} failed: {proc.stderr.decode()}")
        return proc.stdout.decode("utf-8", "replace")

    def write(self, rel: str, content: str | bytes) -> Path:
        """Write a file (creating parent directories) and return its path."""
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_bytes(content.encode())
        return target

    def commit(self, message: str = "change") -> str:
        """Stage everything and commit; returns the new HEAD sha."""
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD").strip()

    def branch(self, name: str) -> None:
        """Create and switch to a new branch."""
        self.git("checkout", "-q", "-b", name)
