import json
import os
import urllib.request

TOKEN = os.environ["GITHUB_TOKEN"]


def create_release(tag):
    req = urllib.request.Request(
        "https://api.github.com/repos/acme/app/releases",
        data=json.dumps({"tag_name": tag}).encode(),
        headers={"Authorization": f"Bearer {TOKEN}"},
    )
    return urllib.request.urlopen(req)
