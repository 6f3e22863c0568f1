import os
import sys


def main():
    requested = os.environ.get("APP_CONFIG", "app.ini")
    name = "app.ini"
    sys.stderr.write(f"config requested: {requested}\n")
    with open(os.path.join("/etc/app", name)) as fh:
        print(fh.read())


if __name__ == "__main__":
    main()
