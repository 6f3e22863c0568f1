import jinja2
from jinja2 import Environment, FileSystemLoader, select_autoescape


def environments():
    # ruleid: xss
    mail = jinja2.Environment(loader=jinja2.PackageLoader("shop"))
    # ruleid: xss
    pages = Environment(loader=FileSystemLoader("templates"))
    # ok: xss
    safe = Environment(loader=FileSystemLoader("templates"), autoescape=select_autoescape())
    # ok: xss
    strict = jinja2.Environment(loader=jinja2.PackageLoader("shop"), autoescape=True)
    return mail, pages, safe, strict
