def make_scorer(expr):
    source = "lambda x: " + expr
    return eval(source)
