from pathlib import Path

import yaml

FIXTURES = Path("fixtures")


def load_fixture(name):
    raw = (FIXTURES / name).read_text()
    return yaml.load(raw, yaml.SafeLoader)
