"""Growth of the work no unit test can count: CPU time at n and 2n, best of five.

The complexity guards in ``tests/regressions/test_issue12_scaling.py`` count lines of brson's
code and characters of paths, which is the same on every run; work done inside the regex
engine is invisible to them. What is left here is that work:

- ``packdb``: :func:`brson.package.packdb_names` over a run of ``0x02`` bytes. A pattern that
  scanned a key forward from every ``0x02`` was quadratic (a 940-byte package: 23 s; issue 12,
  defect 9); the URL is found by its literal text and checked backwards.

``python benchmarks/scaling.py`` prints each case's times and growth; ``--check`` also exits 1
when one grows by more than ``LIMIT`` (linear is 2, the old code about 4). Timing belongs
here, not in unit tests: a machine's load moves it (docs/performance.md, "Complexity guards").
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

#: Largest accepted ``cost(2n) / cost(n)``, over a floor for timer noise.
LIMIT = 2.6
FLOOR_S = 0.005
REPEATS = 5


def _cost(run: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


def _packdb(n: int) -> Callable[[], object]:
    from brson.package import packdb_names

    data = b"\x02" * n + b"\x00....no url"  # every 0x02 starts a key that ends at the NUL
    return lambda: packdb_names(data)


CASES: dict[str, tuple[Callable[[int], Callable[[], object]], int]] = {
    "packdb": (_packdb, 20_000),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="exit 1 on superlinear growth")
    args = parser.parse_args(argv)
    failed = []
    for name, (make, n) in CASES.items():
        small, large = _cost(make(n)), _cost(make(2 * n))
        ok = large <= LIMIT * small + FLOOR_S
        print(
            f"{name}: n={n} {small * 1000:.2f} ms, 2n {large * 1000:.2f} ms, "
            f"growth {large / small if small else float('inf'):.2f} "
            f"({'linear' if ok else 'SUPERLINEAR'})"
        )
        if not ok:
            failed.append(name)
    return 1 if args.check and failed else 0


if __name__ == "__main__":
    sys.exit(main())
