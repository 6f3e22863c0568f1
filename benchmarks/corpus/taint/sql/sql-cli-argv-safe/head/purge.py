import sqlite3
import sys


def main():
    customer = sys.argv[1]
    conn = sqlite3.connect("crm.db")
    conn.execute("DELETE FROM notes WHERE customer = ?", (customer,))
    conn.commit()
    print("purged notes for", customer)


if __name__ == "__main__":
    main()
