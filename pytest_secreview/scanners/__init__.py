"""External scanners (bandit, semgrep) run as rules: one adapter per scanner behind one
interface (:class:`~.base.Adapter`), run once per session on the pull request's changed files
as they are at the head revision, their results kept to the added lines and mapped into the
:class:`~pytest_secreview.core.findings.Finding` contract.

A rule opts in with the frontmatter key ``scanner:`` (declared beside the rule model, in
:mod:`pytest_secreview.rules.scanner_spec`); the deterministic layer calls
:func:`.session.scan_target`. Nothing here imports ``reporting/`` or ``github/``.
"""
