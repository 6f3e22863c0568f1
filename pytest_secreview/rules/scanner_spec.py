"""What a rule's ``scanner:`` key may name: the known scanners and, for each, the command-line
arguments a rule may pass. The one definition both the rule model (validation at load time)
and the adapters (the command they build) use.

Arguments are allow-listed because the adapter owns the output format, the targets, the
configuration sources and the network switches: a rule could otherwise ask bandit for a
``.bandit`` ini file from the pull request, or semgrep for a registry config.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Flag -> does it take a value (``--flag VALUE`` or ``--flag=VALUE``)?
ALLOWED_ARGS: dict[str, dict[str, bool]] = {
    "bandit": {
        "-t": True, "--tests": True, "-s": True, "--skip": True,
        "--severity-level": True, "--confidence-level": True,
        "-l": False, "-ll": False, "-lll": False, "-i": False, "-ii": False, "-iii": False,
        "-p": True, "--profile": True,
    },
    "semgrep": {
        "--severity": True, "--exclude-rule": True, "--timeout": True,
        "--timeout-threshold": True, "--max-target-bytes": True, "--max-memory": True,
        "-j": True, "--jobs": True,
    },
    # Built into the review (pytest_secreview.deps): nothing to install, no argument.
    "osv": {},
    "supply-chain": {},
}

#: Scanners built into the review: they read the changed files' base and head revisions
#: themselves (:mod:`pytest_secreview.scanners.builtin`), need no install and take no argument.
BUILTIN = frozenset({"osv", "supply-chain"})

#: Why semgrep makes no item without its configuration.
NO_SEMGREP_CONFIG = (
    "semgrep runs only with rule files your team names: pass --secreview-semgrep-config PATH "
    "(a local rule file or directory; repeatable). The registry is never used"
)

#: Why the advisory check makes no item without an advisory source.
NO_ADVISORY_SOURCE = (
    "known vulnerabilities are looked up only in an advisory source you name: pass "
    "--secreview-advisories DIR (OSV JSON records, or OSV's ecosystem all.zip; offline) or "
    "--secreview-osv-url https://api.osv.dev (the OSV API; sends the changed packages' names "
    "and versions)"
)

#: Scanners that run only with a configuration the team names (semgrep's rule files, the
#: advisory source), and why: without it, the rule makes no item (a scanner the team has not
#: configured is no gap for ``--secreview-unreviewed=fail``), and the summaries' notes say
#: how to configure it (:func:`pytest_secreview.reporting.build.coverage_notes`).
IDLE_REASONS: dict[str, str] = {"semgrep": NO_SEMGREP_CONFIG, "osv": NO_ADVISORY_SOURCE}
NEEDS_CONFIG = frozenset(IDLE_REASONS)


#: The pip extra that installs every scanner.
INSTALL_HINT = "install it with: pip install 'pytest-secreview[scanners]'"


def check_args(name: str, args: Sequence[str]) -> None:
    """Raise ``ValueError`` naming the first argument ``name``'s adapter does not allow."""
    allowed = ALLOWED_ARGS[name]
    expect_value = False
    for arg in args:
        if expect_value:
            expect_value = False
            continue
        flag, sep, _value = arg.partition("=")
        if flag not in allowed:
            choices = ", ".join(sorted(allowed))
            raise ValueError(f"argument {arg!r} is not allowed for {name}; allowed: {choices}")
        expect_value = allowed[flag] and not sep
    if expect_value:
        raise ValueError(f"argument {args[-1]!r} needs a value")
