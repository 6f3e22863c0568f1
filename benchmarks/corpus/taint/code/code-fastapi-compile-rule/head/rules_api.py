from fastapi import FastAPI, HTTPException

app = FastAPI()
PREDEFINED = ("amount > 100", "country == 'NL'", "retries >= 3")


@app.get("/match")
def match(rule: str, amount: int = 0, country: str = "", retries: int = 0):
    record = {"amount": amount, "country": country, "retries": retries}
    code = compile(rule, "<rule>", "eval")
    return {"match": bool(eval(code, {"__builtins__": {}}, record))}
