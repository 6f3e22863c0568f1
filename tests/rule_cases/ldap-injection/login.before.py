from ldap.filter import escape_filter_chars


def user_filter(name: str) -> str:
    # match: ldap-injection
    return "(uid=" + escape_filter_chars(name) + ")"
