import os

import requests


def main():
    source = "https://prices.example.com/latest.csv"
    out = os.environ.get("PRICE_FILE", "prices.csv")
    data = requests.get(source, timeout=30).text
    with open("/var/lib/prices/" + os.path.basename(out), "w") as fh:
        fh.write(data)


if __name__ == "__main__":
    main()
