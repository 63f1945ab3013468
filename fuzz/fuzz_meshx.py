"""Fuzz target `meshx` (see fuzz/targets.py); run `python fuzz/fuzz_meshx.py -runs=100000`."""

import sys

from harness import main

if __name__ == "__main__":
    sys.exit(main("meshx"))
