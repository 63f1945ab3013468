#!/bin/sh
# The viewer's three.js bundle (brson/view/static/vendor/three.bundle.min.js): three.js, its
# GLTFLoader and OrbitControls bundled by esbuild into one classic script (no CDN: `brson view`
# works offline, and the --html export inlines it). The bundle is committed, so that `pip
# install .` gives a working viewer with no npm; this script rebuilds it from the npm packages
# pinned by brson/view/js/package-lock.json.
#
#   sh scripts/vendor-three.sh          rebuild the committed bundle (`make vendor`)
#   sh scripts/vendor-three.sh --check  rebuild it aside and fail unless the bytes are the
#                                       committed ones (`make vendor-check`, run by `make test`)
#
# The build is reproducible: `npm ci` installs exactly the lockfile's versions (checked against
# its integrity hashes), and esbuild's output depends only on its version, its options and its
# inputs. Without npm the check fails; outside CI (CI unset) it says so and skips, since the
# committed bundle is what the viewer uses either way.
set -eu
cd "$(dirname "$0")/../brson/view/js"
BUNDLE=../static/vendor/three.bundle.min.js
MODE=${1:-build}

if ! command -v npm >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "vendor-three: installing nodejs and npm" >&2
    apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends nodejs npm >&2
fi
if ! command -v npm >/dev/null 2>&1; then
    if [ "$MODE" = --check ] && [ -z "${CI:-}" ]; then
        echo "vendor-three: npm not found; the bundle's reproducibility is NOT checked" >&2
        exit 0
    fi
    echo "vendor-three: npm not found; install nodejs and npm" >&2
    exit 1
fi
# node_modules is reused only when it was installed from this very lockfile.
if ! cmp -s package-lock.json node_modules/.brson-lockfile 2>/dev/null; then
    npm ci --silent --no-audit --no-fund >&2
    cp package-lock.json node_modules/.brson-lockfile
fi

OUT=$(mktemp "${TMPDIR:-/tmp}/three.bundle.XXXXXX")
trap 'rm -f "$OUT"' EXIT
node_modules/.bin/esbuild entry.js --bundle --minify --format=iife --legal-comments=inline \
    --charset=ascii --log-level=warning --outfile="$OUT"

if [ "$MODE" = --check ]; then
    if cmp -s "$OUT" "$BUNDLE"; then
        echo "vendor-three: the committed bundle is what the lockfile builds ($(wc -c <"$BUNDLE") bytes)"
        exit 0
    fi
    echo "vendor-three: brson/view/static/vendor/three.bundle.min.js differs from what" \
        "brson/view/js/package-lock.json builds: run \`make vendor\` and commit the result" >&2
    exit 1
fi
mkdir -p ../static/vendor
cp "$OUT" "$BUNDLE.tmp"
mv "$BUNDLE.tmp" "$BUNDLE"
