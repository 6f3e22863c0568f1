"""Rules: the markdown model, loading (from the base revision by default) and matching."""
