ALLOWED_SORT = {"name", "created_at"}


def list_reports(cursor, sort):
    cursor.execute("SELECT id, name FROM reports ORDER BY " + sort)
    return cursor.fetchall()
