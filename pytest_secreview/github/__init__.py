"""GitHub access: the pull request's context from the Actions environment, the REST client,
and the one check of a user's write access. What is posted (comments, progress) is in
:mod:`pytest_secreview.publish`."""
