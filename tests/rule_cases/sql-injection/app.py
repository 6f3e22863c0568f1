from flask import Flask, request
from sqlalchemy import text

from .models import User, db

app = Flask(__name__)


def find_users(cursor):
    name = request.args["name"]
    # ruleid: sql-injection
    cursor.execute(f"SELECT * FROM users WHERE name = '{name}'")
    # ruleid: sql-injection
    cursor.execute("SELECT * FROM users WHERE name = '%s'" % name)
    # ruleid: sql-injection
    cursor.execute("SELECT * FROM users WHERE name = '" + name + "'")
    # ruleid: sql-injection
    cursor.execute("SELECT * FROM users WHERE name = '{}'".format(name))
    # ok: sql-injection
    cursor.execute("SELECT * FROM users WHERE name = %s", (name,))
    return cursor.fetchall()


def find_orders(owner):
    # ruleid: sql-injection
    rows = db.session.execute(text(f"SELECT * FROM orders WHERE owner = '{owner}'"))
    # ok: sql-injection
    rows = db.session.execute(text("SELECT * FROM orders WHERE owner = :owner"), {"owner": owner})
    return rows


def lookup(cursor):
    # ruleid: sql-injection
    cursor.execute(f"SELECT * FROM users WHERE id = {request.args['id']}")
    # ruleid: sql-injection
    cursor.execute("SELECT * FROM users WHERE id = " + request.args["id"])
    # ok: sql-injection
    cursor.execute("SELECT * FROM users WHERE id = %s", (request.args["id"],))
    return cursor.fetchall()


def search(cursor):
    # match: sql-injection
    query = "SELECT * FROM users WHERE id = " + request.args["id"]
    cursor.execute(query)


def by_username(username):
    # ruleid: sql-injection
    return User.objects.raw(f"SELECT * FROM auth_user WHERE username = '{username}'")


def by_username_safe(username):
    # ok: sql-injection
    return User.objects.raw("SELECT * FROM auth_user WHERE username = %s", [username])
