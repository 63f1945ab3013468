#!/bin/sh
# Debian's git for the git integration tests (tests/cli/test_git_cli.py: `brson git install`,
# then real `git diff`, `git log -p`, `git blame` and the external-diff form on real samples;
# CI=true fails them without it).  Needs root for apt; otherwise says what to run.
set -eu
command -v git >/dev/null 2>&1 && exit 0
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-git: git is not installed; install it with: sudo apt-get install -y git" >&2
    exit 0
fi
apt-get update -q >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends git >&2
