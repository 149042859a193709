#!/usr/bin/env python3
"""Sorts the samples of `perf script` (with call chains) into what one step of play spends
its time on, and writes the folded stacks a flame graph is drawn from.

Reads `perf script` output on standard input. Each sample goes to the category of the
innermost frame that names one (a sample in `malloc` called from `serde_json::ser` is
serialisation); kernel frames count for the user-space frame below them (a `send` system
call made by libpq is a database round trip). Prints a Markdown table; with `--folded F`
also writes one line per distinct stack, root first, as flame graph tools read them.
"""
import argparse
import collections
import re
import sys

# Innermost match wins; checked in this order for each frame.
CATEGORIES = [
    ("database round trips", r"diesel::|^PQ|^pq|libpq|sqlite3|turnpost::store::"),
    ("authentication", r"turnpost::auth|jsonwebtoken|hmac::|sha2::|RecentChecks"),
    ("legal actions", r"::legal_actions|legal_actions_json"),
    ("views", r"::view_json|>::view\b|::view$"),
    ("deciding and folding", r"::decide|::apply|redact_and_apply|append_described_after|"
                             r"describe_|::fold\b|state_at|table_at|apply_stored"),
    ("fold cache", r"fold_cache::"),
    ("parsing JSON", r"serde_json::de::|serde_json::read::|from_slice|from_str|"
                     r"transport::Json|Deserialize"),
    ("writing JSON", r"serde_json::ser::|serde_json::value::ser|to_raw_value|Serialize"),
    ("HTTP (actix, middleware)", r"actix|mio::|h1::|middleware"),
    ("thread hand-over (tokio, blocking pool)", r"tokio::|parking_lot|Condvar|futex"),
]
COMPILED = [(name, re.compile(pattern)) for name, pattern in CATEGORIES]
FRAME = re.compile(r"^\s*[0-9a-f]+\s+(.*?)(?:\+0x[0-9a-f]+)?\s+\((.*)\)\s*$")


# A worker thread's own PostgreSQL connections (diesel-async) run on tokio's socket types:
# a sample anywhere under them is a database round trip, whatever its innermost frame.
WORKER_CONNECTIONS = re.compile(r"tokio_postgres::|diesel_async::|postgres_protocol::")


def category(frames):
    """`frames` innermost first, as (symbol, object) pairs."""
    if any(WORKER_CONNECTIONS.search(symbol) for symbol, _ in frames):
        return CATEGORIES[0][0]
    for symbol, _ in frames:
        for name, pattern in COMPILED:
            if pattern.search(symbol):
                return name
    if frames and frames[0][1].startswith("[kernel"):
        return "kernel, other"
    return "other (allocation, std)"


def samples(lines):
    frames = []
    for line in lines:
        if not line.strip():
            if frames:
                yield frames
            frames = []
            continue
        match = FRAME.match(line)
        if match:
            frames.append((match.group(1), match.group(2)))
    if frames:
        yield frames


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--folded", help="write folded stacks here")
    parser.add_argument("--title", default="")
    parser.add_argument("--drop", help="leave out samples with a frame matching this")
    args = parser.parse_args()
    counts = collections.Counter()
    folded = collections.Counter()
    total = 0
    drop = re.compile(args.drop) if args.drop else None
    for frames in samples(sys.stdin):
        if drop and any(drop.search(symbol) for symbol, _ in frames):
            continue
        total += 1
        name = category(frames)
        counts[name] += 1
        if args.folded:
            stack = [re.sub(r"[;\s]+", "_", symbol) for symbol, _ in reversed(frames)]
            folded[";".join([name.replace(" ", "_")] + stack)] += 1
    if args.folded:
        with open(args.folded, "w") as out:
            for stack, count in folded.most_common():
                out.write(f"{stack} {count}\n")
    print(f"| {args.title or 'category'} | share of the server's samples |")
    print("| --- | --- |")
    for name, _ in CATEGORIES + [("kernel, other", None), ("other (allocation, std)", None)]:
        if counts[name]:
            print(f"| {name} | {100.0 * counts[name] / max(total, 1):.1f} % |")
    print(f"| samples | {total} |")


if __name__ == "__main__":
    main()
