import os

DATABASE_URL = os.environ["DATABASE_URL"]
STRIPE_API_KEY = os.environ.get("STRIPE_API_KEY", "")
SESSION_SECRET = os.environ["SESSION_SECRET"]
