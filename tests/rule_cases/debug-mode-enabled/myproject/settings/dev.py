# Developer-only settings: the rule's exclude list keeps them out of review.
# noitem: debug-mode-enabled
from .base import *  # noqa: F403

DEBUG = True
