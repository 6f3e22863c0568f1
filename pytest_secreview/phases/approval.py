"""``secreview comment`` without surprises: ``--dry-run`` prints every request exactly as it
would be sent, ``--interactive`` asks y/n/q before each comment.

Both work on the same path as a real run (:func:`~..publish.outputs.deliver_rich` and
:func:`~..publish.comments.publish`), so what is printed or approved is what is posted."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TextIO

from ..github.client import GitHubClient, encode_body
from ..publish.result import Approve
from ..severity import one_line


class PrintingClient(GitHubClient):
    """A dry-run client that also prints each request it does not send: the method and URL
    on one line, then the JSON body as :meth:`GitHubClient.request` would send it (ASCII:
    every character outside it is a ``\\u`` escape, so nothing from the pull request can
    drive the terminal), then the comment's markdown as a reader will see it, each line
    indented, then a blank line. Every line goes through
    :func:`~pytest_secreview.severity.one_line` like all printed text, so a file name holding
    ``##[error]`` cannot become a workflow command; the exact bytes are in the dry-run
    directory's request files."""

    def __init__(self, *args: Any, out: TextIO, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.out = out

    def request(self, method: str, path: str, *, json_body: Mapping[str, Any] | None = None,
                params: Mapping[str, str | int] | None = None) -> Any:
        if method.upper() != "GET":
            body = b"" if json_body is None else encode_body(json_body)
            self.out.write(f"{one_line(f'{method.upper()} {self._url(path)}')}\n"
                           f"{one_line(body.decode('ascii'))}\n")
            markdown = (json_body or {}).get("body")
            if isinstance(markdown, str):
                self.out.write("--- the comment, as markdown ---\n")
                self.out.writelines(f"    {one_line(line)}\n" for line in markdown.splitlines())
            self.out.write("\n")
            self.out.flush()
        return super().request(method, path, json_body=json_body, params=params)


def terminal_approver(stdin: TextIO, stdout: TextIO) -> Approve:
    """Ask before each comment: ``y`` posts it, ``n`` skips it, ``q`` skips it and every
    comment after it. End of input counts as ``q``. The body is shown line by line with
    control characters escaped (it holds text from the pull request and the model)."""
    stopped = False

    def approve(where: str, body: str) -> bool:
        nonlocal stopped
        if stopped:
            return False
        shown = "\n".join(f"  {one_line(line)}" for line in body.splitlines())
        stdout.write(f"\n--- comment: {one_line(where)} ---\n{shown}\n"
                     "Post this comment? [y]es / [n]o / [q]uit: ")
        stdout.flush()
        while True:
            answer = stdin.readline()
            choice = answer.strip().lower()
            if not answer or choice in ("q", "quit"):
                stopped = True
                stdout.write("stopped: no further comment will be posted\n")
                return False
            if choice in ("y", "yes"):
                return True
            if choice in ("n", "no"):
                return False
            stdout.write("Please answer y, n or q: ")
            stdout.flush()

    return approve
