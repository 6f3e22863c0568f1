import requests


def make_session():
    session = requests.Session()
    return session
