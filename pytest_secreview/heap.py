"""The review's long-lived objects and Python's cyclic garbage collector.

A review builds tens of thousands of objects that live until the process exits: the parsed
diff, the compiled rules, one pytest item per (rule, files). Every full collection of the
cyclic garbage collector walks all of them, and pytest runs two at exit; on a 2,000-file pull
request that was about a fifth of the collection's CPU time, for nothing to free.
``gc.freeze()`` moves the objects alive now out of the collector's reach, once they are
built.

Frozen objects are never freed. In a command-line run that is the process's lifetime; a
process that runs pytest several times (``pytester`` in-process runs, ``pytest.main`` from a
script) gets the earlier run's objects back into the collector when the next review starts.
"""

from __future__ import annotations

import gc


def release_earlier_run() -> None:
    """Hand what an earlier in-process review froze back to the collector, and collect it
    (nothing to do in a fresh process)."""
    if gc.get_freeze_count():
        gc.unfreeze()
        gc.collect()


def freeze_long_lived() -> None:
    """Exempt every object alive now from later collections (see the module docstring)."""
    gc.freeze()
