"""Registers the fuzzing account on the server at argv[1] and a second player, starts a
2-player Tikal game between them (the fuzzer in seat 0), and prints the fuzzer's token and
the game's id, a line each: the operations on a game are fuzzed on a real, running one."""

import json
import sys
import urllib.request

base = sys.argv[1]


def call(path, body, token=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), headers=headers, method="POST"
    )
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def sign_up(name):
    credentials = {"name": name, "password": "correct horse battery staple"}
    call("/v1/accounts", credentials)
    return call("/v1/tokens", credentials)["token"]


fuzzer = sign_up("fuzzer")
opponent = sign_up("opponent")
game = call("/v1/games", {"kind": "tikal", "seats": 2, "seat": 0}, fuzzer)
call(f"/v1/games/{game['id']}/seats", {}, opponent)
print(fuzzer)
print(game["id"])
