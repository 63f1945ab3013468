#!/bin/sh
# `make sanitize`: brson's C accelerators (brson/_speedups/*.c) built with AddressSanitizer and
# UndefinedBehaviorSanitizer, then the tests that drive them run: the package's own checks, each
# module's differential test, the decoder hand-off (pymongo's C decoder fed what brson frames),
# the ID scan's collision guard and the fuzz slice. Any report fails the run.
#
# The sanitized modules are built into a copy of the source tree (brson/, tests/, fixtures/,
# fuzz/, scripts/, pyproject.toml; ../shared is linked beside it), and the tests run there: the
# checkout's own modules stay as they are, so the rest of `make test` runs at the same time. Python puts
# the copy first on sys.path (the current directory and PYTHONPATH, which the tests' child
# processes inherit), ahead of the editable install's finder. The interpreter is not
# instrumented, so libasan is preloaded (it must come first), leaks are not reported
# (CPython keeps its objects at exit) and PYTHONMALLOC=malloc gives every object a heap block
# of its own, so a read past one is caught (pymalloc's pools would hide it, also from reads by
# pymongo's C code, which ASan's memcpy interceptor sees).
#
# Usage: sh scripts/sanitize.sh [PYTEST ARGS...] (added to the tests below); PY= the venv's python.
# In two steps (`make test` builds while pip installs the venv, which the build does not need):
#   sh scripts/sanitize.sh --build DIR     the copy and the sanitized modules into DIR (new), and
#   SANITIZE_DIR=DIR sh scripts/sanitize.sh [PYTEST ARGS...]   the tests on it (DIR removed after).
# PY for --build may be the interpreter the venv is made from (only its headers and suffix count).
set -eu
BUILD_ONLY=
if [ "${1:-}" = --build ]; then
    [ $# -eq 2 ] || { echo "sanitize: usage: sh scripts/sanitize.sh --build DIR" >&2; exit 2; }
    BUILD_ONLY="$2"
    shift 2
fi
PY="${PY:-.venv/bin/python}"
case "$PY" in */*) PY=$(cd "$(dirname "$PY")" && pwd)/$(basename "$PY") ;; *) PY=$(command -v "$PY") ;; esac
CC="${CC:-gcc}"
SUFFIX=$("$PY" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
INCLUDE=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
LIBASAN=$("$CC" -print-file-name=libasan.so)
[ -f "$LIBASAN" ] || { echo "sanitize: $CC has no libasan ($LIBASAN)" >&2; exit 1; }
SANITIZE="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"

if [ -n "$BUILD_ONLY" ]; then
    rm -rf "$BUILD_ONLY"
    mkdir -p "$BUILD_ONLY"
    WORK=$(cd "$BUILD_ONLY" && pwd)
elif [ -n "${SANITIZE_DIR:-}" ]; then
    WORK=$(cd "$SANITIZE_DIR" && pwd)
else
    WORK=$(mktemp -d)
fi
REPORTS="$WORK/reports"
COPY="$WORK/brson"
DIR="$COPY/brson/_speedups"
finish() {
    status=$?
    # ASan's reports go to files (UBSan's to fd 2, which pytest leaves alone below)
    for report in "$REPORTS"/*; do
        [ -f "$report" ] && head -n 40 "$report" >&2
    done
    # a build kept for the run that follows; anything else (a run, a failed build) goes
    [ -n "$BUILD_ONLY" ] && [ "$status" -eq 0 ] || rm -rf "$WORK"
}
trap finish EXIT
trap 'exit 130' INT TERM

# The copy and the build (unless SANITIZE_DIR holds them, from --build)
if [ -z "${SANITIZE_DIR:-}" ] || [ -n "$BUILD_ONLY" ]; then
    mkdir "$REPORTS" "$COPY"

    # (not what other steps write meanwhile: the fuzz findings and corpora, caches, builds)
    tar -cf - --exclude=node_modules --exclude=__pycache__ --exclude='*.so' --exclude='*.egg-info' \
        --exclude=fuzz/findings --exclude='fuzz/corpus-*' \
        brson tests fixtures fuzz scripts pyproject.toml | tar -xf - -C "$COPY"
    [ -d ../shared ] && ln -s "$(cd ../shared && pwd)" "$WORK/shared"
    # -Og, not -O1: far less of the compile's CPU, the tests as fast, and its flow analysis
    # still warns of a maybe-uninitialized variable (-O0 would not: this -Werror build is the
    # only one that fails on a warning). -g1: the line tables a report's stack needs, not the
    # variables' locations (which cost the compile more again).
    for source in "$DIR"/_*.c; do
        module="${source%.c}$SUFFIX"
        echo "sanitize: $CC $SANITIZE ${source#"$COPY"/}"
        "$CC" -shared -fPIC -g1 -Og -Wall -Wextra -Wno-unused-parameter -Werror $SANITIZE \
            -I"$INCLUDE" "$source" -o "$module" &
    done
    # The copy's Python byte-compiled meanwhile by a plain interpreter: compiled at import
    # under ASan (every allocation its own heap block) it costs several times the CPU.
    "$PY" -m compileall -q "$COPY/brson" "$COPY/tests" "$COPY/fuzz" > /dev/null
    wait
    for source in "$DIR"/_*.c; do
        [ -f "${source%.c}$SUFFIX" ] || { echo "sanitize: ${source#"$COPY"/} did not build" >&2; exit 1; }
    done
fi
[ -z "$BUILD_ONLY" ] || exit 0
[ -d "$DIR" ] || { echo "sanitize: $WORK holds no build (sh scripts/sanitize.sh --build DIR)" >&2; exit 1; }
# Hypothesis keeps each local module's constants (which it draws examples from) by the
# source's hash in its storage folder: the checkout's, which the warm-up collection of
# `make test` fills, serves the copy's same sources (worked out again under ASan, every
# module's syntax tree walked in Python, they were much of the collection's CPU).
export HYPOTHESIS_STORAGE_DIRECTORY="${HYPOTHESIS_STORAGE_DIRECTORY:-$(pwd)/.hypothesis}"
cd "$COPY"
export PYTHONPATH="$COPY"
export LD_PRELOAD="$LIBASAN"
export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:exitcode=86:log_path=$REPORTS/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=86:log_path=$REPORTS/ubsan"
export PYTHONMALLOC=malloc
# The tests' sanitized depth (tests/tiers.py): a sample of each mutation loop's inputs.
export BRSON_SANITIZE=1
# Every module must be the sanitized build, loaded (CI=true then fails a differential test
# whose module did not import; this says which and why first).
"$PY" - "$COPY" <<'EOF'
import sys
from pathlib import Path

import brson._speedups as speedups

if not speedups.__file__.startswith(sys.argv[1]):
    sys.exit(f"sanitize: brson imports from {speedups.__file__}, not the copy")
for source in sorted(Path(speedups.__file__).parent.glob("_*.c")):
    module = speedups.load(source.stem)
    if module is None or b"__asan_init" not in Path(module.__file__).read_bytes():
        sys.exit(f"sanitize: {source.stem} is not loaded with ASan")
    print(f"sanitize: {module.__name__} loaded with ASan and UBSan")
EOF
# The tests: those of scripts/sanitize-tests.txt (whole test functions, or single cases of a
# parametrized one), written by `make sanitize-select` (scripts/sanitize_select.py) from C line
# coverage: the modules built with gcov and these sanitizers, under the differential tests, the
# decoder hand-off, the ID scan's guards and the fuzz slice's C targets, at the sanitized
# depth, reached 4,710 lines of brson's C (each header counted once a module). The list reaches
# all of them at the least CPU found: a greedy cover weighted by each test's CPU time under
# the sanitizers, then the picks whose lines the others reach dropped. A fault shows on the
# first input that reaches its line, so the rest (sweeps over every sample, every slot,
# mutated copies) is the normal suite's to run: 112 of the 1,147 tests, 21% of their CPU.
# After a change to the C, a new sample or a renamed listed test, run it again.
# Never the fuzz slice's `sql` target: DuckDB's C++ exceptions abort under a preloaded libasan
# (ASan's __cxa_throw interceptor finds no real one in an uninstrumented interpreter), and it
# reaches none of brson's C.
set -- @scripts/sanitize-tests.txt "$@"
# One process (no xdist worker to start again under ASan: the run is short, and the other
# steps of `make test` use the second CPU); a report halts it, which fails the run.
# SANITIZE_WORKERS=2 spreads it over two xdist workers instead (a worker that dies ends the run).
# --assert=plain: the test modules imported from the build's byte code, not rewritten first
# (pytest's rewrite walks each module's syntax tree in Python, slow under ASan); an assert
# fails the same, its message without the compared values (the suite's run shows them).
# --capture=sys: fd 2 stays the terminal's, because UBSan writes its report there (it ignores
# log_path when libasan is preloaded) and a halted process never hands a captured fd back.
"$PY" -m pytest -q -p no:cacheprovider -x -n "${SANITIZE_WORKERS:-0}" --max-worker-restart=0 \
    --assert=plain --capture=sys "$@"
