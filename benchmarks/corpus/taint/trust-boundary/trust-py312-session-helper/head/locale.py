from flask import Flask, request, session

app = Flask(__name__)
app.secret_key = "dev-only"
LOCALES = ("en", "nl", "de")


def remember[T](key: str, value: T) -> T:
    session[key] = value
    return value


@app.post("/locale")
def set_locale():
    wanted = request.get_json()["locale"]
    return {"locale": remember("locale", wanted)}
