#!/bin/sh
# Debian's Graphviz for `brson flux --format svg` and for tests/flux, which render every
# sample's `--format dot` output with the real `dot -Tsvg`.  With CI=true those tests fail when
# `dot` is missing, so `make test` runs this first; installing needs root.
set -eu
if command -v dot >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-graphviz: dot is not installed; the Graphviz tests will skip (fail in CI)." >&2
    echo "ensure-graphviz: install it with: sudo apt-get install -y graphviz" >&2
    exit 0
fi
echo "ensure-graphviz: installing graphviz" >&2
apt-get update -q >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends graphviz >&2
command -v dot >/dev/null
