"""The agent loop and what it needs: the model's tool loop (``loop.py``), the prompts
(``prompt.py``, ``prompts/``), the final report tool, the team's guidance. Shared by the
evaluation of an item, the findings triage, the intent audit, fix mode and mention mode, none of
which imports another for it."""
