from ldap.filter import escape_filter_chars


def user_filter(name):
    return "(uid=" + escape_filter_chars(name) + ")"
