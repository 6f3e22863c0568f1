class Billing:
    def __init__(self, session, ca_bundle):
        self.session = session
        self.ca_bundle = ca_bundle

    def charge(self, url, payload):
        return self.session.post(url, json=payload, verify=self.ca_bundle, timeout=5)
