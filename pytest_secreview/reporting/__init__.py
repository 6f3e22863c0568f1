"""Results: the session summary aggregated from item reports, and the files written from it."""
