#!/usr/bin/env python3
"""Plays whole games with random legal actions against a running turnpost server and
saves the export of each finished game. Used once to record the rules-version fixtures."""
import json, random, sys, urllib.request, urllib.error

API = sys.argv[1]
OUT = sys.argv[2]
KIND = sys.argv[3]
SEATS = int(sys.argv[4])
OPTIONS = json.loads(sys.argv[5]) if len(sys.argv) > 5 else {}
PICK_SEED = int(sys.argv[6]) if len(sys.argv) > 6 else 1

def call(method, path, body=None, token=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(API + path, data=data, method=method)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req) as resp:
            return resp.status, json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")

rnd = random.Random(PICK_SEED)
tokens = []
for i in range(SEATS):
    name = f"fx{rnd.randrange(10**9)}"
    call("POST", "/v1/accounts", {"name": name, "password": "fixture password"})
    status, tok = call("POST", "/v1/tokens", {"name": name, "password": "fixture password"})
    assert status == 200, tok
    tokens.append(tok["token"])
status, game = call("POST", "/v1/games", {"kind": KIND, "seats": SEATS, "options": OPTIONS}, tokens[0])
assert status in (200, 201), game
gid = game["id"]
for seat in range(1, SEATS):
    status, joined = call("POST", f"/v1/games/{gid}/seats", {"seat": seat}, tokens[seat])
    assert status in (200, 201), joined
moves = 0
while True:
    status, summary = call("GET", f"/v1/games/{gid}", token=tokens[0])
    if summary["status"] == "finished":
        break
    seat = rnd.choice(summary["to_act"])
    status, legal = call("GET", f"/v1/games/{gid}/legal-actions", token=tokens[seat])
    actions = legal["actions"]
    # Ending the turn early makes games long and dull; prefer anything else most of the time.
    # Pick an action type first, then an action of it, so that the many developer moves
    # do not crowd out everything else; ending the turn early is rarer.
    by_type = {}
    for a in actions:
        by_type.setdefault(a.get("type"), []).append(a)
    kinds = sorted(by_type)
    if len(kinds) > 1 and rnd.random() < 0.7:
        kinds = [k for k in kinds if k not in ("end_turn", "pass")] or kinds
    action = rnd.choice(by_type[rnd.choice(kinds)])
    status, result = call("POST", f"/v1/games/{gid}/actions",
                          {"expected_seq": legal["seq"], "action": action}, tokens[seat])
    assert status in (200, 201), (action, result)
    moves += 1
status, export = call("GET", f"/v1/games/{gid}/export", token=tokens[0])
assert export["complete"], export
with open(OUT, "w") as f:
    json.dump(export, f, indent=1, sort_keys=True)
    f.write("\n")
print(OUT, KIND, SEATS, "actions", moves, "events", len(export["events"]), "outcome", export["outcome"])
