"""Several fuzz targets, one after another, from one process (``make fuzz``, ``make fuzz-short``).

``python fuzz/run.py loads validate:1000 sql:30 -runs=100000 -seed=1``: each target (``name``,
or ``name:runs`` with a run count of its own) under libFuzzer in a child forked after brson
is instrumented and imported once; each log in ``fuzz/findings/<name>.log``, its totals
printed. Other libFuzzer flags are passed to every target; ``--driver`` (or no atheris) runs
the plain mutation driver instead. One target alone: ``python fuzz/fuzz_<name>.py``.
"""

import sys

from harness import run_many

if __name__ == "__main__":
    args = sys.argv[1:]
    specs = [a for a in args if not a.startswith("-")]
    sys.exit(run_many(specs, [a for a in args if a.startswith("-")]))
