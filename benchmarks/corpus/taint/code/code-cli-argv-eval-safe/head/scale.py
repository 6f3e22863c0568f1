import sys


def main():
    factor = float(sys.argv[1])
    for line in sys.stdin:
        print(float(line) * factor)


if __name__ == "__main__":
    main()
