import yaml


def read_settings(fh):
    # match: unsafe-deserialization
    return yaml.safe_load(fh)
