ALLOWED_SORT = {"name", "created_at"}


def list_reports(cursor, sort):
    # match: sql-injection
    if sort not in ALLOWED_SORT:
        sort = "name"
    cursor.execute("SELECT id, name FROM reports ORDER BY " + sort)
    return cursor.fetchall()
