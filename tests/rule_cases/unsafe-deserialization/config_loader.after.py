import yaml


def read_settings(fh):
    # ruleid: unsafe-deserialization
    return yaml.load(fh, Loader=yaml.FullLoader)
