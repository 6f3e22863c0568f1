import html


def card(title):
    shown = title
    return "<div class='card'><h3>" + shown + "</h3></div>"
