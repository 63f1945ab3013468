"""Fuzz target `patch` (see fuzz/targets.py); run `python fuzz/fuzz_patch.py -runs=100000`."""

import sys

from harness import main

if __name__ == "__main__":
    sys.exit(main("patch"))
