"""The pull request's diff: running git and parsing its output into FileDiff/Hunk values."""
