# The files below this directory are test *data* for the rule pack (deliberately vulnerable
# code in several languages), never tests: keep pytest from collecting any of them.
collect_ignore_glob = ["*"]
