"""``secreview comment``: post the stored evaluation on the pull request, as a whole review
would (one summary comment and/or inline comments), from ``<artifacts>/phases/``.

``--dry-run`` sends nothing that writes: it prints each request (method, URL, JSON body
exactly as it would be sent) and still reads the pull request's existing comments when a
token is given, so it shows whether the summary would be edited or created.
``--interactive`` asks y/n/q before each comment; it needs a terminal.

Exit status: 0 when the comment phase ran, 2 for bad input (a missing or stale artifact, an
option that cannot apply), with a message saying what to run or pass instead.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..errors import ConfigError, SecreviewError
from ..github.client import GitHubClient
from ..github.context import pull_request_from_env
from ..options import BY_NAME
from ..phases.approval import PrintingClient, terminal_approver
from ..phases.publish import publish_stored
from ..publish.result import Approve
from ..severity import one_line
from .flags import add_setting
from .phases import artifacts_dir, error_line, setting_from_env, stored_settings


def parser() -> argparse.ArgumentParser:
    """The command's arguments; the settings it shares with the pytest run come from the
    option table (:mod:`.flags`)."""
    parser = argparse.ArgumentParser(
        prog="secreview comment",
        description="Post the evaluate phase's results on the pull request.")
    add_setting(parser, "artifacts", help="artifacts directory of the earlier phases "
                "(default: SECREVIEW_ARTIFACTS or secreview-artifacts)")
    add_setting(parser, "comment", help="what to post: summary, inline or all (default: "
                "SECREVIEW_COMMENT, else summary); off is refused, this command posts")
    add_setting(parser, "pr", help="pull request number (default: SECREVIEW_PR or the "
                "GitHub Actions event)")
    add_setting(parser, "repo", help="repository (default: SECREVIEW_REPO or "
                "GITHUB_REPOSITORY)")
    add_setting(parser, "dry-run", help="print every request that would write to GitHub "
                "instead of sending it")
    parser.add_argument("--interactive", action="store_true",
                        help="ask y/n/q before each comment (needs a terminal)")
    return parser


def comment(args: argparse.Namespace, env: Mapping[str, str]) -> list[str]:
    """Run the comment phase; return the lines to print."""
    root = args.artifacts or artifacts_dir([], env)
    given = args.comment or setting_from_env("comment", env, "--comment")
    if given == "off":
        origin = "--comment off" if args.comment else f"{BY_NAME['comment'].env}=off"
        raise ConfigError(f"{origin} posts nothing, and this command is the step that posts: "
                          "choose summary, inline or all, or leave the step out")
    # Unlike a review, which posts nothing without a token and a PR, this command needs both
    # (or --dry-run), so its default is the summary a review would post with them.
    mode = given or "summary"
    settings = stored_settings(env, root=root, pr=args.pr, repo=args.repo, comment=mode)
    client: GitHubClient | None = None
    approve: Approve | None = None
    if args.dry_run:
        pr = pull_request_from_env(env, number=settings.pr, repository=settings.repo)
        client = PrintingClient(pr.api_url, pr.token, dry_run_dir=root / "github-requests",
                                out=sys.stdout)
    if args.interactive:
        approve = terminal_approver(sys.stdin, sys.stdout)
    lines: list[str] = []
    publish_stored(root, settings=settings, invocation=Path.cwd(), stages=("comment",),
                   lines=lines, needed_by="secreview comment", env=env, client=client,
                   approve=approve, require_pr=True)
    return lines


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] | None = None) -> int:
    """Entry point of ``secreview comment``."""
    args = parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.interactive and args.dry_run:
        print("secreview comment: --interactive asks before posting and --dry-run posts "
              "nothing; use one of them", file=sys.stderr)
        return 2
    if args.interactive and not sys.stdin.isatty():
        print("secreview comment: --interactive needs a terminal to ask y/n/q, and standard "
              "input is not one; run it in a terminal, or drop --interactive (CI posts "
              "everything; --dry-run shows what would be posted)", file=sys.stderr)
        return 2
    try:
        lines = comment(args, os.environ if env is None else env)
    except (SecreviewError, OSError) as exc:
        print(error_line("secreview comment", exc), file=sys.stderr)
        return 2
    for line in lines:
        print(one_line(line))
    return 0
