"""The review one phase at a time: diff, rules, evaluate, comment, report.

Each phase writes its artifacts under ``<artifacts>/phases/`` and the next one reads them
instead of recomputing, refusing artifacts that are missing or do not match the repository.
The ``secreview <phase>`` commands (:mod:`pytest_secreview.cli`) and the pytest run's
``--secreview-stop-after``/``--secreview-from-phase`` share this package.
"""
