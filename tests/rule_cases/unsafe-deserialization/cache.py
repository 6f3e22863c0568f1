import marshal
import pickle

import jsonpickle
import numpy as np
import torch
import yaml
from flask import request

from .yamlutil import ProjectSafeLoader


def load_session():
    # ruleid: unsafe-deserialization
    return pickle.loads(request.cookies["session"].encode("latin-1"))


def load_config(blob, path):
    # ruleid: unsafe-deserialization
    code = marshal.loads(blob)
    # ruleid: unsafe-deserialization
    cfg = yaml.load(request.data)
    # ruleid: unsafe-deserialization
    cfg = yaml.load(request.data, Loader=yaml.Loader)
    # ok: unsafe-deserialization
    cfg = yaml.load(request.data, Loader=yaml.SafeLoader)
    # ok: unsafe-deserialization
    cfg = yaml.safe_load(request.data)
    # ok: unsafe-deserialization
    cfg = yaml.load(request.data, Loader=ProjectSafeLoader)
    # ruleid: unsafe-deserialization
    cfg = yaml.unsafe_load(request.data)
    # ruleid: unsafe-deserialization
    obj = jsonpickle.decode(request.data)
    # ruleid: unsafe-deserialization
    model = torch.load(path)
    # ok: unsafe-deserialization
    model = torch.load(path, weights_only=True)
    # ruleid: unsafe-deserialization
    arr = np.load(path, allow_pickle=True)
    return code, cfg, obj, model, arr
