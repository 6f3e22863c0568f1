"""``python -m pytest_secreview``: the ``secreview`` command."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
