#!/bin/sh
# Debian's Chromium for tests/view (driven by Playwright for Python through executable_path:
# Playwright's own browser download needs the open internet).  With CI=true the browser tests
# fail when it is missing, so `make test` runs this first; installing needs root.
set -eu
if command -v chromium >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-browser: chromium is not installed; the browser tests will skip (fail in CI)." >&2
    echo "ensure-browser: install it with: sudo apt-get install -y chromium" >&2
    exit 0
fi
echo "ensure-browser: installing chromium" >&2
apt-get update -q >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium >&2
command -v chromium >/dev/null
