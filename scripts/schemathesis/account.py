"""Registers a fuzzing account on the server at argv[1] and prints a token for it."""

import json
import sys
import urllib.request

base = sys.argv[1]
credentials = {"name": "fuzzer", "password": "correct horse battery staple"}


def post(path, body):
    request = urllib.request.Request(
        base + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request) as response:
        return json.load(response)


post("/v1/accounts", credentials)
print(post("/v1/tokens", credentials)["token"])
