def parse_setting(raw: str) -> object:
    # match: code-injection
    return eval(raw)
