"""GitHub: the pull request's context from the Actions environment, the REST client and
the PR comments."""
