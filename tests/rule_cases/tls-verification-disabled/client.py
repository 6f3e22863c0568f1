import ssl

import jwt
import requests
from elasticsearch import Elasticsearch

# ruleid: tls-verification-disabled
resp = requests.get("https://internal.example.com/api", verify=False)
# ok: tls-verification-disabled
resp = requests.get("https://internal.example.com/api", verify="/etc/ssl/internal-ca.pem")
# ruleid: tls-verification-disabled
es = Elasticsearch("https://search.internal:9200", verify_certs=False)

# ruleid: tls-verification-disabled
ctx = ssl._create_unverified_context()
# ruleid: tls-verification-disabled
ctx.check_hostname = False
# ruleid: tls-verification-disabled
ctx.verify_mode = ssl.CERT_NONE
# ok: tls-verification-disabled
ctx = ssl.create_default_context(cafile="/etc/ssl/internal-ca.pem")


def claims(token):
    # A JWT option, not TLS: reported by the JWT rule instead.
    # ok: tls-verification-disabled
    # ruleid: jwt-verification-disabled
    return jwt.decode(token, verify=False)
