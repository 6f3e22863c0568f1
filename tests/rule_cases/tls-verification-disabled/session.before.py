import requests


def make_session():
    session = requests.Session()
    # ruleid: tls-verification-disabled
    session.verify = True
    return session
