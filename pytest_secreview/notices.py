"""The plugin's warnings, reported in pytest's warnings summary without passing through the
project's warning filters.

A project may set ``filterwarnings = error`` (werkzeug does) for its own code. Raised through
``warnings.warn`` from a hook, a notice of the review would then stop the run with an
``INTERNALERROR``; from an item it would change the item's outcome. The review's notices are
facts about the review (each also in its summary), so they go straight to the
``pytest_warning_recorded`` hook, which the terminal's warnings summary and pytest-xdist's
worker-to-controller forwarding both listen to.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any, Literal


def record_warning(
    ihook: Any,
    warning: Warning,
    *,
    nodeid: str = "",
    when: Literal["config", "collect", "runtest"] = "config",
) -> None:
    """Report ``warning`` as pytest reports a captured one (``ihook`` is ``config.hook`` or
    an item's ``ihook``), without raising under any warning filter. Its location is the
    caller's line, as with ``warnings.warn``."""
    frame = sys._getframe(1)
    location = (frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name)
    message = warnings.WarningMessage(warning, type(warning), location[0], location[1])
    ihook.pytest_warning_recorded.call_historic(kwargs={
        "warning_message": message, "when": when, "nodeid": nodeid, "location": location,
    })
