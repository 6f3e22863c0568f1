import os

from .base import *  # noqa: F403

# ok: debug-mode-enabled
DEBUG = os.environ.get("DJANGO_DEBUG", "0") == "1"
