import tarfile


def unpack(path, dest):
    # ruleid: path-traversal
    tarfile.open(path).extractall(dest)
    with tarfile.open(path) as tf:
        # ok: path-traversal
        tf.extractall(dest, filter="data")
    with tarfile.open(path) as tar:
        # ruleid: path-traversal
        tar.extract("manifest.json", dest)
        # ok: path-traversal
        tar.extract("manifest.json", dest, filter=tarfile.data_filter)
