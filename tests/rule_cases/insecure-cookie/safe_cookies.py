"""Cookies with both flags: nothing for the rule to report."""


def remember(resp, value):
    resp.set_cookie("remember", value, max_age=3600, secure=True, httponly=True)
    return resp
