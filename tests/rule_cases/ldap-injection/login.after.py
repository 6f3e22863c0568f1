def user_filter(name: str) -> str:
    # match: ldap-injection
    return "(uid=" + name + ")"
