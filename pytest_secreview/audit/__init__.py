"""The intent audit: does this change do what its author says it does?

* :mod:`.signals` and :mod:`.evidence`: deterministic risk evidence from the diff alone;
* :mod:`.statement`: what the author says (PR title and body, commit messages), capped;
* :mod:`.verdict`: the ``report_verdict`` tool and what its verdicts mean for an item;
* :mod:`.review`: the model's judgment, on the evaluation's own agent loop.

The ``intent`` item that runs them (one per pull request) is :mod:`..items.intent`.
"""
