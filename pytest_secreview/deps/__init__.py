"""Dependency review: what a pull request changes in what gets installed.

- :mod:`.manifests` reads a manifest or lock file's text (requirements files, ``pyproject.toml``,
  ``setup.cfg``, ``setup.py`` statically, Pipfile and its lock, ``poetry.lock``, ``uv.lock``,
  ``pdm.lock``, ``package.json``, ``package-lock.json``) into requirements with their lines,
  and :mod:`.changes` compares the base and head texts: the requirements the pull request adds
  or changes, each with the version(s) it introduces, on the line that introduces it;
- :mod:`.signals`: supply-chain signals that need no database (a name one typo from a popular
  package, direct URL/VCS/path requirements, package indexes, removed hash pinning, widened
  pins, GitHub Actions not pinned to a commit);
- :mod:`.osv`: known vulnerabilities from OSV records (a directory, OSV's ecosystem archive, or
  the OSV API), with OSV's range semantics and CVSS severities.

Everything here reads text it is given: it runs nothing a manifest names (``setup.py`` is
parsed with :mod:`ast`) and fetches nothing a manifest names. The scanners layer reads the
blobs from git and turns the results into findings (:mod:`pytest_secreview.scanners.builtin`).
"""
