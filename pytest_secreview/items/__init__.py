"""The pytest items of a review, all subclasses of :class:`~.base.ReviewItem`.

* :mod:`.base`: what every item does the same way (marker, record and verdict, the end of
  ``runtest``, the failure text through pytest's public ``repr_failure``);
* :mod:`.failure`: the text of a failure with findings;
* :mod:`.rule`: one rule applied to changed files (``RuleItem``) and a rule file that is not a
  valid rule (``BrokenRuleItem``);
* :mod:`.unreviewed_file`: a changed file no item reviews (``UnreviewedItem``);
* :mod:`.intent`: the intent audit of the pull request (``IntentItem``);
* :mod:`.mention`: the answer to a mention-mode question (``MentionItem``).

Making the items (from the rule files, the gaps, the pull-request-scoped rules) is
:mod:`..collection`'s job; the review logic they run is in :mod:`..evaluation`,
:mod:`..audit` and :mod:`..mention`.
"""
