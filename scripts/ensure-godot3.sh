#!/bin/sh
# Make sure the headless Godot 3.2.3 engine (Debian package godot3-server) is installed.
#
# Why: tests/godot checks the Variant codec byte for byte against the real engine.  With CI=true
# those tests fail when the engine is missing, so `make test` runs this first.  Installing needs
# root; without it we only say what to run, and the engine tests skip (outside CI).
set -eu

if command -v godot3-server >/dev/null 2>&1; then
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "ensure-godot3: godot3-server is not installed; the Godot 3 engine tests will skip." >&2
    echo "ensure-godot3: install it with: sudo apt-get update && sudo apt-get install -y godot3-server" >&2
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-godot3: no apt-get here; install Godot 3.2 headless (godot3-server) by hand." >&2
    exit 0
fi

echo "ensure-godot3: installing godot3-server" >&2
apt-get update -q >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -q godot3-server >&2
# Godot 3.2.3 prints its version and exits 255: report it, judge the install by the command.
godot3-server --version || true
command -v godot3-server >/dev/null
