import requests
from fastapi import FastAPI

app = FastAPI()
DEFAULT_ENDPOINT = "https://notify.example.com/v1/send"


class Notifier:
    def __init__(self, endpoint: str):
        self.endpoint = endpoint

    def send(self, text: str) -> int:
        return requests.post(self.endpoint, json={"text": text}, timeout=5).status_code


@app.post("/notify")
def notify(endpoint: str, text: str):
    notifier = Notifier(endpoint)
    notifier.endpoint = DEFAULT_ENDPOINT
    return {"status": notifier.send(text)}
