from .base import *  # noqa: F403

# match: debug-mode-enabled
DEBUG = False
ALLOWED_HOSTS = ["api.example.com"]
