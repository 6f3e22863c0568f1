import sys

import yaml


def main(path):
    with open(path, encoding="utf-8") as handle:
        hosts = yaml.unsafe_load(handle)
    for name in sorted(hosts):
        print(name)


if __name__ == "__main__":
    main(sys.argv[1])
