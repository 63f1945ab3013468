#!/bin/sh
# A C compiler and the headers of the venv's Python, to build brson's C accelerators
# (brson/_speedups/) at `pip install`. The build is optional (without them brson runs its
# pure-Python paths), but CI=true fails their differential tests then, so `make` runs this
# first; `make sanitize` needs gcc's libasan and libubsan (Debian's gcc brings them). A pyenv
# or python.org interpreter carries its headers; Debian's needs python3-dev.
set -eu
PY="${1:-python3}"
INCLUDE=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
if command -v "${CC:-cc}" >/dev/null 2>&1 && [ -f "$INCLUDE/Python.h" ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-cc: no C compiler or no $INCLUDE/Python.h: brson installs without its C" >&2
    echo "ensure-cc: accelerators (pure Python). Install them with: sudo apt-get install -y gcc python3-dev" >&2
    exit 0
fi
echo "ensure-cc: installing gcc and python3-dev" >&2
apt-get update -q >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends gcc libc6-dev python3-dev >&2
