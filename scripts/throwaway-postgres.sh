# Sourced by scripts/test: starts a private PostgreSQL cluster for the test run, installing
# Debian's postgresql package first if the machine has none, and exports TEST_DATABASE_URL.
# The cluster lives in a temporary directory and is removed when the calling shell exits.

pg_bin_dir() {
    ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

as_cluster_owner() {
    # initdb and postgres refuse to run as root.
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

PG_BIN=$(pg_bin_dir)
if [ -z "$PG_BIN" ]; then
    echo "scripts/test: installing PostgreSQL (Debian package postgresql)" >&2
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    else
        sudo apt-get update -qq
        sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    fi
    PG_BIN=$(pg_bin_dir)
fi
if [ -z "$PG_BIN" ]; then
    echo "scripts/test: no PostgreSQL binaries after installing; set TEST_DATABASE_URL" >&2
    exit 1
fi

PG_DIR=$(mktemp -d /tmp/turnpost-pg.XXXXXX)
chmod 755 "$PG_DIR"
[ "$(id -u)" = 0 ] && chown postgres "$PG_DIR"
# A port unlikely to be taken, different per run so parallel runs do not collide.
PG_PORT=$((20000 + $$ % 20000))

as_cluster_owner "$PG_BIN/initdb" -D "$PG_DIR/data" -A trust -U postgres -E UTF8 --no-sync >"$PG_DIR/initdb.log" 2>&1 || {
    cat "$PG_DIR/initdb.log" >&2
    exit 1
}
# Durability is pointless for a throwaway cluster and these settings make the tests faster;
# THROWAWAY_POSTGRES_DURABLE=1 keeps PostgreSQL's durable defaults, as the load benchmark
# wants for a fair comparison with a production database.
PG_SETTINGS="-c max_connections=300"
if [ "${THROWAWAY_POSTGRES_DURABLE:-0}" != 1 ]; then
    PG_SETTINGS="$PG_SETTINGS -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
fi
as_cluster_owner "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 \
    -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 $PG_SETTINGS" \
    start >/dev/null || {
    cat "$PG_DIR/server.log" >&2
    exit 1
}

stop_throwaway_postgres() {
    as_cluster_owner "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$PG_DIR"
}
trap stop_throwaway_postgres EXIT

export TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$PG_PORT/postgres"
echo "scripts/test: throwaway PostgreSQL at $TEST_DATABASE_URL" >&2
