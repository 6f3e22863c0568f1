"""The ``secreview`` command."""
