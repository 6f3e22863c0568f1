import yaml
from flask import request


def upload_config():
    data = yaml.safe_load(request.get_data(as_text=True))
    return {"keys": sorted(data or {})}
