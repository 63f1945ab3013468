"""Fuzz target `folders` (see fuzz/inputs.py); run `python fuzz/fuzz_folders.py -runs=100000`."""

import sys

from harness import main

if __name__ == "__main__":
    sys.exit(main("folders"))
