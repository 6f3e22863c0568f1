import jinja2


def page_renderer():
    env = jinja2.Environment(loader=jinja2.PackageLoader("shop"), autoescape=True)
    return env.get_template("page.html")
