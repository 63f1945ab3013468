#!/bin/sh
# Usage: sh scripts/ensure-apt.sh COMMAND PACKAGE
# A Debian package a real-tool test needs (chromium for tests/view, git for the git drivers'
# tests, graphviz's `dot` for tests/flux): nothing when COMMAND is on PATH, else installed with
# apt (as root), else what to run is said. With CI=true those tests fail when the tool is
# missing, so `make test` runs this first.
set -eu
command="$1"
package="$2"
if command -v "$command" >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-apt: $command is not installed; its tests will skip (fail in CI)." >&2
    echo "ensure-apt: install it with: sudo apt-get install -y $package" >&2
    exit 0
fi
echo "ensure-apt: installing $package" >&2
apt-get update -q >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$package" >&2
command -v "$command" >/dev/null
