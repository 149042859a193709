#!/usr/bin/env python3
"""Instructions per action from a callgrind profile of the server under the load benchmark:
the whole server's, and the inclusive count of the functions each part of a step starts in.

Arguments: the callgrind output file and the number of actions the benchmark made. The
parts overlap where one calls another (an action loads the game: both count it)."""
import re
import subprocess
import sys

# Each part: the functions whose inclusive count it is (the largest of them counts, so
# that a function and its closure are not added twice).
PARTS = [
    ("authentication (the token checked)", r"AuthUser as actix_web::extract::FromRequest>::from_request$"),
    ("request body parsed (actions)", r"transport::Json<T> as actix_web::extract::FromRequest>::from_request::\{\{closure\}\}$"),
    ("reads: legal actions and views, on the database threads", r"^turnpost::store::Db::read_without_transaction$"),
    ("  legal actions written as JSON", r"Table>::legal_actions_json$"),
    ("  views written as JSON", r"Table>::view_json$"),
    ("action: checked, decided, appended, answered", r"^turnpost::service::play::act$"),
    ("  the engine deciding", r"^turnpost::service::play::decide$"),
    ("  the append's statements", r"^turnpost::store::games::append$"),
    ("the game and its seats read (every request)", r"^turnpost::store::games::find_game_with_seats$"),
    ("answers written (views and actions' answers)", r"Serialize for turnpost::api::models::(ViewOut|ActionAccepted)>::serialize$"),
    ("ETag of read answers (SHA-256 of the body)", r"^turnpost::api::transport::entity_tag$"),
    ("password hashing (the sign-ups, not the steps)", r"^turnpost::auth::password::(hash_with|verify_with)$"),
]
LINE = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(?:[^:\s]*:(?!:))?(.+?)(?:\s+\[[^\]]*\])?$")


def main(path, actions):
    actions = max(int(actions), 1)
    text = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
        capture_output=True, text=True, check=True).stdout
    total = 0
    inclusive = {}
    for line in text.splitlines():
        if "PROGRAM TOTALS" in line:
            total = int(line.split()[0].replace(",", ""))
        match = LINE.match(line)
        if match:
            count, name = int(match.group(1).replace(",", "")), match.group(2).strip()
            inclusive[name] = max(inclusive.get(name, 0), count)
    hashing = 0
    print("| part | instructions per action |")
    print("| --- | --- |")
    for part, pattern in PARTS:
        compiled = re.compile(pattern)
        counts = [count for name, count in inclusive.items() if compiled.search(name)]
        best = max(counts, default=0)
        if part.startswith("password"):
            hashing = sum(counts)
            continue
        print(f"| {part} | {best / actions:,.0f} |")
    print(f"| whole server, sign-ups' password hashing left out | {(total - hashing) / actions:,.0f} |")
    print(f"| actions | {actions} |")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
