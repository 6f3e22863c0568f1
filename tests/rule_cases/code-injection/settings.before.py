import ast


def parse_setting(raw: str) -> object:
    # match: code-injection
    return ast.literal_eval(raw)
