"""Publishing a review: the output files and renderings of a finished session
(``outputs.py``), the pull-request comment (summary and inline), and the progress comment
while items run. Above ``reporting/`` (which renders) and ``github/`` (which talks to the API).
"""
