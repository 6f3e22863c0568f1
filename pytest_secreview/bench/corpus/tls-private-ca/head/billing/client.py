import requests

API = "https://billing.internal.example/api"
CA_BUNDLE = "/etc/ssl/internal-ca.pem"


def invoices(customer_id):
    resp = requests.get(f"{API}/invoices", params={"customer": customer_id},
                        verify=CA_BUNDLE, timeout=10)
    resp.raise_for_status()
    return resp.json()
