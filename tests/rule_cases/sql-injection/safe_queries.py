"""Parameterised queries only: nothing for the rule to report."""

ALLOWED_SORT = {"name": "name", "created": "created_at"}


def list_users(cursor, name, sort):
    column = ALLOWED_SORT.get(sort, "name")
    cursor.execute(
        "SELECT id, name FROM users WHERE name = %s ORDER BY " + column,
        (name,),
    )
    return cursor.fetchall()


def count(session, model, owner):
    return session.query(model).filter(model.owner == owner).count()
