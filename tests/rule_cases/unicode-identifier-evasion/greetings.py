import pickle


def greet(name):
    # ok: unicode-identifier-evasion
    return f"Olá, {name}! Café ☕ naïve"


def plain(request):
    # ok: unicode-identifier-evasion
    return pickle.dumps(request.data)
