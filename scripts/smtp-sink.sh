# Sourced by scripts/test: makes sure the mail tests have a real SMTP server to send
# through (Python's aiosmtpd, which each test starts on a port of its own), installing
# Debian's python3-aiosmtpd package when Debian's python3 lacks it, and exports that python.
# Debian's python3 is named by its path: a python3 earlier on the PATH (pyenv, a venv)
# does not see Debian's packages.

TURNPOST_PYTHON3=/usr/bin/python3
if ! "$TURNPOST_PYTHON3" -c 'import aiosmtpd' >/dev/null 2>&1; then
    echo "$0: installing aiosmtpd for the mail tests (Debian package python3-aiosmtpd)" >&2
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-aiosmtpd >/dev/null
    else
        sudo apt-get update -qq
        sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-aiosmtpd >/dev/null
    fi
fi
if ! "$TURNPOST_PYTHON3" -c 'import aiosmtpd' >/dev/null 2>&1; then
    echo "$0: no aiosmtpd for $TURNPOST_PYTHON3 after installing it" >&2
    exit 1
fi
export TURNPOST_PYTHON3
