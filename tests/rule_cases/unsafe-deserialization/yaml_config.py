import yaml


def read_config(path):
    with open(path) as handle:
        text = handle.read()
    # ruleid: unsafe-deserialization
    settings = yaml.load(text, Loader=yaml.FullLoader)
    # ruleid: unsafe-deserialization
    plugins = yaml.load(text, yaml.UnsafeLoader)
    # ok: unsafe-deserialization
    defaults = yaml.load(text, yaml.SafeLoader)
    # ok: unsafe-deserialization
    extra = yaml.load(text, Loader=yaml.CSafeLoader)
    return settings, plugins, defaults, extra
