from flask import Flask, render_template, render_template_string, request
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

app = Flask(__name__)


@app.route("/hello")
def hello():
    # ruleid: xss
    return f"<h1>Hello {request.args.get('name')}</h1>"


@app.route("/search")
def search():
    # ruleid: xss
    return render_template_string(f"<p>{request.args['q']}</p>")


@app.route("/hello-safe")
def hello_safe():
    # ok: xss
    return render_template("hello.html", name=request.args.get("name"))


def make_env():
    # ruleid: xss
    unsafe = Environment(loader=FileSystemLoader("templates"), autoescape=False)
    # ok: xss
    safe = Environment(loader=FileSystemLoader("templates"), autoescape=select_autoescape())
    return unsafe, safe


def badge(name):
    # ruleid: xss
    first = Markup(f"<b>{name}</b>")
    # ok: xss
    second = Markup("<b>{}</b>").format(name)
    return first + second
