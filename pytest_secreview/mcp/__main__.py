"""``python -m pytest_secreview.mcp``: the same as ``secreview-mcp``."""

import sys

from .cli import main

sys.exit(main())
