"""Fuzz target `godot4` (see fuzz/targets.py); run `python fuzz/fuzz_godot4.py -runs=100000`."""

import sys

from harness import main

if __name__ == "__main__":
    sys.exit(main("godot4"))
