#!/bin/sh
# Debian's git, for the git integration tests (tests/cli/test_git_cli.py: `brson git install`,
# then real `git diff`, `git log -p`, `git blame` and the external-diff form on real samples).
# Installed with apt when missing (root needed; without root we only say what to run).
set -eu

if command -v git >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure-git: installing Debian's git" >&2
    apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q git >&2
else
    echo "ensure-git: git is not installed; install it with: sudo apt-get install -y git" >&2
fi
