DEBUG = False
ALLOWED_HOSTS = ["shop.example.com"]
# ruleid: insecure-cookie
SESSION_COOKIE_SECURE = True
# ruleid: insecure-cookie
CSRF_COOKIE_SECURE = True
TIME_ZONE = "UTC"
