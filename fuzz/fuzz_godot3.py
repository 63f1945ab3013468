"""Fuzz target `godot3` (see fuzz/targets.py); run `python fuzz/fuzz_godot3.py -runs=100000`."""

import sys

from harness import main

if __name__ == "__main__":
    sys.exit(main("godot3"))
