import sys
import tarfile


def unpack(bundle, dest):
    tarfile.open(bundle).extractall(dest, filter="tar")
    return dest


if __name__ == "__main__":
    unpack(sys.argv[1], sys.argv[2])
