# Sourced by scripts/test: makes sure headless Chromium and its WebDriver are there for the
# browser test, installing Debian's chromium and chromium-driver packages when they are not,
# and exports their paths.

if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
    echo "scripts/test: installing Chromium for the browser test (Debian packages chromium, chromium-driver)" >&2
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
    else
        sudo apt-get update -qq
        sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
    fi
fi
TURNPOST_CHROMIUM=$(command -v chromium)
TURNPOST_CHROMEDRIVER=$(command -v chromedriver)
export TURNPOST_CHROMIUM TURNPOST_CHROMEDRIVER
