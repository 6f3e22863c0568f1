"""Deploy helper that ships its own SSH key (do not do this)."""

DEPLOY_KEY = """
# ruleid: private-key-committed
{{OPENSSH_PRIVATE_KEY_BLOCK}}
"""
