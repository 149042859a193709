# Sourced by scripts/test: makes sure curl and jq are there for the README walkthrough's
# test (tests/api/readme.rs runs scripts/readme-examples), installing Debian's curl and jq
# packages when they are not.

if ! command -v curl >/dev/null 2>&1 || ! command -v jq >/dev/null 2>&1; then
    echo "$0: installing curl and jq for the README walkthrough's test (Debian packages curl, jq)" >&2
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq curl jq >/dev/null
    else
        sudo apt-get update -qq
        sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq curl jq >/dev/null
    fi
fi
