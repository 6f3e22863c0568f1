from .base import *  # noqa: F403

ALLOWED_HOSTS = ["api.example.com"]
