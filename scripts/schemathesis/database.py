"""`create URL NAME` makes database NAME on the PostgreSQL server at URL and prints its URL;
`drop URL NAME` drops it. Uses psql, which the PostgreSQL package installs."""

import subprocess
import sys
from urllib.parse import urlsplit, urlunsplit

action, url, name = sys.argv[1:4]
statement = {
    "create": f'CREATE DATABASE "{name}"',
    "drop": f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)',
}[action]
subprocess.run(["psql", url, "-q", "-c", statement], check=True)
if action == "create":
    parts = urlsplit(url)
    print(urlunsplit(parts._replace(path="/" + name)))
