#!/bin/sh
# Build the viewer's three.js bundle (brson/view/static/vendor/three.bundle.min.js) from the npm
# packages pinned by brson/view/js/package-lock.json: three.js, its GLTFLoader and OrbitControls
# bundled by esbuild into one classic script (no CDN: `brson view` works offline, and the
# --html export inlines it).  The bundle is built, not committed; `make test`/`make demo` run this.
set -eu
cd "$(dirname "$0")/../brson/view/js"
OUT=../static/vendor/three.bundle.min.js

if ! command -v npm >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "vendor-three: installing nodejs and npm" >&2
    apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends nodejs npm >&2
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "vendor-three: npm not found; install nodejs and npm, then run: make vendor" >&2
    exit 1
fi
if [ ! -x node_modules/.bin/esbuild ] || [ ! -d node_modules/three ]; then
    npm ci --silent --no-audit --no-fund >&2
fi
mkdir -p ../static/vendor
node_modules/.bin/esbuild entry.js --bundle --minify --format=iife --legal-comments=inline \
    --log-level=warning --outfile="$OUT.tmp"
mv "$OUT.tmp" "$OUT"
