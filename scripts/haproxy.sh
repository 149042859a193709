# Sourced by scripts/test and scripts/cluster-test: makes sure HAProxy is there for the cluster
# test (three instances behind it), installing Debian's haproxy package when it is not, and
# exports its path. Debian puts it in /usr/sbin, which a normal user's PATH often lacks.

TURNPOST_HAPROXY=$(PATH="$PATH:/usr/sbin:/usr/local/sbin" command -v haproxy || true)
if [ -z "$TURNPOST_HAPROXY" ]; then
    echo "$0: installing HAProxy for the cluster test (Debian package haproxy)" >&2
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null
    else
        sudo apt-get update -qq
        sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null
    fi
    TURNPOST_HAPROXY=$(PATH="$PATH:/usr/sbin:/usr/local/sbin" command -v haproxy || true)
fi
if [ -z "$TURNPOST_HAPROXY" ]; then
    echo "$0: no haproxy after installing it" >&2
    exit 1
fi
export TURNPOST_HAPROXY
