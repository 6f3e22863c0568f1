from jinja2 import Environment, FileSystemLoader, select_autoescape

ENV = Environment(loader=FileSystemLoader("templates"), autoescape=select_autoescape())


def render_receipt(order):
    return ENV.get_template("receipt.html").render(order=order)
