"""Every credential comes from the environment: nothing for the rule to report."""

import os

SECRET_KEY = os.environ["DJANGO_SECRET_KEY"]
DATABASE_PASSWORD = os.environ.get("DATABASE_PASSWORD", "")
STRIPE_API_KEY = os.getenv("STRIPE_API_KEY")
SLACK_WEBHOOK_URL = os.environ.get("SLACK_WEBHOOK_URL")
DATABASE_URL = "postgres://app:{password}@db.internal:5432/app".format(
    password=DATABASE_PASSWORD
)
