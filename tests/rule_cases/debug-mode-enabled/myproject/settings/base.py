import os

# ruleid: debug-mode-enabled
DEBUG = True
# ok: debug-mode-enabled
TEMPLATE_DEBUG = os.environ.get("DJANGO_DEBUG") == "1"
ALLOWED_HOSTS = ["api.example.com"]
