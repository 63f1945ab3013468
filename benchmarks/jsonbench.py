"""to-json and from-json as the command line runs them, for the benchmark runner (run.py).

``op_to_json(path)`` and ``op_from_json(json_path, out_path)`` run the commands in this process
(``brson.cli.app.main``, nothing imported until called). Run as a script, it measures both on
one world against their floors, each in a fresh process, best of N (CPU time after the
imports, as run.py times; peak RSS, whole and over the RSS after the imports):

    python benchmarks/jsonbench.py benchmarks/worlds/world-10000.brson [--reps 3]

- to-json's floor: Brotli decompression of the payload + ``bson.decode``, collector off;
- from-json's floor: ``json.loads`` + ``bson.encode`` of the JSON form to-json wrote.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path


def op_to_json(path: str | os.PathLike[str]) -> int:
    """``brson to-json PATH -o TEMP`` (streamed to the file); the bytes written."""
    from brson.cli.app import main

    with tempfile.TemporaryDirectory(prefix="jsonbench.") as folder:
        out = Path(folder) / "form.json"
        code = main(["to-json", os.fspath(path), "-o", str(out)])
        if code != 0:
            raise RuntimeError(f"to-json exited with {code}")
        return out.stat().st_size


def op_from_json(json_path: str | os.PathLike[str], out_path: str | os.PathLike[str]) -> int:
    """``brson from-json JSON_PATH -o OUT_PATH`` (the codec from OUT_PATH's extension, else
    the recorded one); the bytes of the archive written."""
    from brson.cli.app import main

    code = main(["from-json", os.fspath(json_path), "-o", os.fspath(out_path)])
    if code != 0:
        raise RuntimeError(f"from-json exited with {code}")
    return Path(out_path).stat().st_size


def _floor_to_json(path: str) -> None:
    import gc

    import brotli
    import bson

    raw = Path(path).read_bytes()
    gc.disable()
    try:
        bson.decode(brotli.decompress(raw[9:]))
    finally:
        gc.enable()


def _floor_from_json(path: str) -> None:
    import bson

    bson.encode(json.loads(Path(path).read_bytes()))


def _child(op: str, args: list[str], reps: int) -> None:
    """One operation in this (fresh) process: best CPU time of ``reps``, peak RSS."""
    ops: dict[str, Callable[[], object]] = {
        "floor-to-json": lambda: _floor_to_json(args[0]),
        "floor-from-json": lambda: _floor_from_json(args[0]),
        "to-json": lambda: op_to_json(args[0]),
        "from-json": lambda: op_from_json(args[0], args[1]),
    }
    run = ops[op]
    from measurement import max_rss  # the runner's measure of peak memory (a sibling script)

    if op in ("to-json", "from-json"):
        import brson.cli.app  # noqa: F401  (imports are not the operation)
    else:
        import brotli  # noqa: F401
        import bson  # noqa: F401
    baseline = max_rss()
    best = float("inf")
    for _ in range(reps):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    peak = max_rss()
    print(json.dumps({"cpu": best, "peak": peak, "baseline": baseline}))


def _measure(op: str, args: list[str], reps: int) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", op, *args, "--reps", str(reps)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--child")
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.paths, args.reps)
        return
    world = args.paths[0]
    bson_size = len(_bson_of(world))
    with tempfile.TemporaryDirectory(prefix="jsonbench.") as folder:
        form = str(Path(folder) / "form.json")
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        from brson.cli.app import main as cli

        if cli(["to-json", world, "-o", form]) != 0:
            raise SystemExit("to-json failed")
        json_size = Path(form).stat().st_size
        floor_to = _measure("floor-to-json", [world], args.reps)
        to_json = _measure("to-json", [world], args.reps)
        floor_from = _measure("floor-from-json", [form], args.reps)
        rows = [("to-json", to_json, floor_to, bson_size, "BSON")]
        for suffix in (".bson", ".brson"):
            result = _measure("from-json", [form, str(Path(folder) / f"back{suffix}")], args.reps)
            rows.append((f"from-json -o {suffix}", result, floor_from, json_size, "JSON"))
    print(f"{Path(world).name}: BSON {bson_size / 1e6:.1f} MB, JSON form {json_size / 1e6:.1f} MB")
    print(f"floor to-json {floor_to['cpu']:.2f} s, from-json {floor_from['cpu']:.2f} s")
    for name, result, floor, size, unit in rows:
        grown = result["peak"] - result["baseline"]
        print(
            f"{name:20} {result['cpu']:6.2f} s CPU  {result['cpu'] / floor['cpu']:5.2f}x floor  "
            f"peak {result['peak'] / 1e6:6.1f} MB = {result['peak'] / size:4.2f}x the {unit} "
            f"({grown / size:4.2f}x over the {result['baseline'] / 1e6:.0f} MB after imports)"
        )


def _bson_of(path: str) -> bytes:
    import brson

    return brson.load(path).to_bson()


if __name__ == "__main__":
    main()
