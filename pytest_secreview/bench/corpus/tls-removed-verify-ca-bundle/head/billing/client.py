import requests

API = "https://billing.internal.example/api"


def invoices(customer_id):
    resp = requests.get(f"{API}/invoices", params={"customer": customer_id})
    resp.raise_for_status()
    return resp.json()
