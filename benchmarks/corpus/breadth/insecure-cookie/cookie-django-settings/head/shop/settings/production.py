from .base import *  # noqa: F403

DEBUG = False
ALLOWED_HOSTS = ["shop.example.com"]
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
