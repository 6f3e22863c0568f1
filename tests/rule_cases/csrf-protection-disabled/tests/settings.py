# Test settings never ship: excluded from review.
# noitem: csrf-protection-disabled
WTF_CSRF_ENABLED = False
