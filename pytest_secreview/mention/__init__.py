"""Mention mode: answer an ``@secreview`` question asked on a pull request, read-only, with
the review's own agent loop and repository tools (the third mode, beside review and fix)."""
