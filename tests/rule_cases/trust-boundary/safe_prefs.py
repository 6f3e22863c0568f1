def theme(prefs, value):
    prefs["theme"] = "dark" if value == "dark" else "light"
    return prefs
