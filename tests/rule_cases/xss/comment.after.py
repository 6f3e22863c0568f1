def render_comment(comment):
    body = comment.body
    return "<p>" + body + "</p>"
