from markupsafe import escape


def render_comment(comment):
    # ruleid: xss
    body = escape(comment.body)
    return "<p>" + body + "</p>"
