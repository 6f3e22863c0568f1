"""Fix mode (``--secreview-mode=fix``): for each confirmed finding the model proposes a patch
through the ``propose_patch`` tool; the plugin keeps only the patches that apply to the head
revision and that its own deterministic checks show remove the finding.

Patches are written to the artifacts directory and offered as GitHub suggestions; nothing is
ever committed to a branch or pushed. The model keeps the read-only repository tools of a
review: ``propose_patch`` returns text, it writes nothing.

- :mod:`.tool`: the tool's one definition and the checks on the patch text (untrusted);
- :mod:`.apply`: ``git apply --check`` in a temporary index, never the user's checkout;
- :mod:`.recheck`: the deterministic review of the patched revision, compared;
- :mod:`.propose`: the model run for one finding;
- :mod:`.run`: one item's findings, end to end; :mod:`.result`: what each one became
  (the report, the comment and the patch files: ``reporting.fixes``).
"""
