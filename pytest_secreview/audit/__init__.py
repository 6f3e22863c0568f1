"""The intent audit: does this change do what its author says it does?

* :mod:`.signals` and :mod:`.evidence`: deterministic risk evidence from the diff alone;
* :mod:`.verdict`: the ``report_verdict`` tool and what its verdicts mean for an item;
* :mod:`.item`: the ``intent`` item (one per pull request) and its model review.
"""
