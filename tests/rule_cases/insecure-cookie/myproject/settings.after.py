DEBUG = False
ALLOWED_HOSTS = ["shop.example.com"]
# ruleid: insecure-cookie
CSRF_COOKIE_SECURE = False
# ruleid: insecure-cookie
SESSION_COOKIE_HTTPONLY = False
TIME_ZONE = "UTC"
