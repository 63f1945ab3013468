#!/bin/sh
# Install the real tools tests/gltf checks every glTF export with:
#   - the Khronos glTF-Validator (npm package gltf-validator, pinned by tests/gltf/node/package-lock.json)
#   - Blender (Debian package blender; imported headless with `blender -b --python ...`)
# With CI=true the tests fail when a tool is missing, so `make test` runs this first.  Installing
# Blender needs root; without it we only say what to run, and the Blender tests skip (outside CI).
set -eu
cd "$(dirname "$0")/../tests/gltf/node"

if ! command -v npm >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure-gltf-tools: installing nodejs and npm" >&2
    apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends nodejs npm >&2
fi
if command -v npm >/dev/null 2>&1; then
    if [ ! -d node_modules/gltf-validator ]; then
        npm ci --silent --no-audit --no-fund >&2
    fi
else
    echo "ensure-gltf-tools: npm not found; the glTF-Validator tests will skip (apt-get install npm)" >&2
fi

if command -v blender >/dev/null 2>&1 && python3 -c "import numpy" 2>/dev/null; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-gltf-tools: blender is not installed; the Blender tests will skip." >&2
    echo "ensure-gltf-tools: install it with: sudo apt-get install -y --no-install-recommends blender" >&2
    exit 0
fi
echo "ensure-gltf-tools: installing blender" >&2
apt-get update -q >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends blender python3-numpy >&2
command -v blender >/dev/null
