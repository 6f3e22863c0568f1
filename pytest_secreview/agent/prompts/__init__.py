"""Prompt files: the reviewer's method, the task, and the tool-use instructions."""
