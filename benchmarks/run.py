"""The benchmark run: the performance targets on both families of worlds, against the floor.

``python benchmarks/run.py`` (``make bench``) generates or reuses the worlds, synthetic
(:mod:`worlds`, ``--sizes`` in slots) and real-shaped (:mod:`realworld`, the real samples tiled,
``--real`` in MiB of BSON), then for each world and codec runs each operation in a fresh
subprocess.  The process imports all of brson first and records its max RSS as the baseline,
runs the operation once for the peak memory (max RSS minus baseline) and the sha256 of its
output, then repeats it for the time (best of N, CPU time of the process: the host is shared).

Three kinds of operation:

- ``fn``: a Python function over the world (the floors, a user's own loops);
- ``cli``: a ``brson`` command run in the fresh process through the entry point the console
  script calls (``brson.cli.app.main``), its standard output sent to a file: what a user runs,
  minus the interpreter's start-up, which ``cli_version`` and ``import_brson`` measure apart;
- ``process``: a whole process (``brson --version``, ``python -c "import brson"``), its CPU time
  and peak memory taken from the kernel's rusage of the child.

Every time is a ratio to the **floor** of the same file measured in the same run: decompressing
alone (the compression library called directly) plus ``bson.decode`` with the cyclic garbage
collector disabled around it; ``diff`` to the floors of both its files, ``from-json`` to
``json.loads`` + ``bson.encode`` of the same JSON.  Every time is also a ratio to
**decompression alone**, the physical limit of any reader.  Operations that write an archive
(extract) also get a **bound**: decompressing the input plus compressing their output's payload
again into the same bytes, over the floor: no implementation writing that output goes below
it.  Memory is the peak over the BSON's
size (``diff``: over both files' BSON; ``diff`` of a world with itself: twice its BSON).

Output: the results and one targets table per family (met or missed) on the terminal,
``benchmarks/results/benchmarks.json`` and ``benchmarks/results/performance.png``;
``--markdown`` prints the tables for docs/performance.md from the JSON; ``--outputs-only``
prints just the sha256 of every operation's output, to check that a change left every output
byte-identical.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: Where a run writes its results (the snapshots docs/performance.md quotes live there too).
RESULTS = HERE / "results"
sys.path.insert(0, str(HERE))

import realworld  # noqa: E402  (sibling scripts, not packages)
import worlds  # noqa: E402
from measurement import child, run_child, run_js, run_process  # noqa: E402
from operations import JS_PEER, OP_LIST, OPS, Op, decompress  # noqa: E402
from tables import markdown, plot, print_outputs, print_profiles, print_table  # noqa: E402
from targets import add_ratios, brief, evaluate, result_row  # noqa: E402

#: Repetitions of a whole-process operation (best of).
PROCESS_REPS = 5

# -- the driver -------------------------------------------------------------------------------


def _python(code: str, *args: str) -> None:
    """Prepare something in a process of its own (the driver stays small while children run)."""
    cmd = [sys.executable, "-c", code, *args]
    subprocess.run(cmd, check=True, cwd=HERE)


@dataclass(frozen=True)
class Family:
    """A kind of world: ``synthetic`` (:mod:`worlds`, sized in slots) or ``real``
    (:mod:`realworld`, the real samples tiled, sized in MiB of BSON)."""

    name: str
    ensure: Callable[[int, list[str], Any], dict[str, Any]]
    path_for: Callable[[int, str], Path]
    meta_path: Callable[[int], Path]


FAMILIES = {
    "synthetic": Family(
        "synthetic", worlds.ensure, worlds.path_for, lambda n: worlds.WORLDS / f"world-{n}.json"
    ),
    "real": Family("real", realworld.ensure, realworld.path_for, realworld.meta_path),
}


def _derived(
    family: Family, size: int, codec: str, meta: dict[str, Any], needs: set[str], log: Any
) -> dict:
    """The world's second version and its JSON form, made once and cached beside it (their
    facts in the world's metadata, which a regenerated world drops)."""
    path = family.path_for(size, codec)
    ext = path.suffix
    derived = meta.setdefault("derived", {}).setdefault(codec, {})
    meta_path = family.meta_path(size)
    out: dict[str, Any] = {}
    if "edited" in needs:
        edited = path.with_name(f"{path.name.removesuffix(ext)}.edited{ext}")
        if not edited.exists() or "edited" not in derived:
            t0 = time.perf_counter()
            _python(
                "import sys; from pathlib import Path\n"
                "try:\n    from diffbench import make_edited\n"
                "except ImportError:\n    from worlds import make_edited\n"
                "make_edited(Path(sys.argv[1]), Path(sys.argv[2]))",
                str(path),
                str(edited),
            )
            data = decompress(edited.read_bytes(), codec)
            derived["edited"] = {
                "name": edited.name,
                "bytes": edited.stat().st_size,
                "bson_bytes": len(data),
                "bson_sha256": hashlib.sha256(data).hexdigest(),
            }
            del data
            meta_path.write_text(json.dumps(meta, indent=1) + "\n")
            log(f"  wrote {edited.name} ({time.perf_counter() - t0:.0f} s)")
        out["edited"] = derived["edited"]
    if "form" in needs:
        form = path.with_name(f"{path.name}.form.json")
        if not form.exists() or "form" not in derived:
            t0 = time.perf_counter()
            _python(
                "import sys; from brson.cli.app import main; sys.exit(main(sys.argv[1:]))",
                "to-json",
                str(path),
                "-o",
                str(form),
            )
            derived["form"] = {"name": form.name, "bytes": form.stat().st_size}
            meta_path.write_text(json.dumps(meta, indent=1) + "\n")
            log(f"  wrote {form.name} ({time.perf_counter() - t0:.0f} s)")
        out["form"] = derived["form"]
    return out


def machine() -> dict[str, Any]:
    import brotli
    import bson
    import lz4

    cpu = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem = 0
    with contextlib.suppress(OSError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = int(line.split()[1]) * 1024
    node = ""
    with contextlib.suppress(OSError):
        node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    return {
        "platform": platform.platform(),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": round(mem / 2**30, 1),
        "python": platform.python_version(),
        "pymongo_bson": getattr(bson, "__version__", _version("pymongo")),
        "brotli": getattr(brotli, "__version__", _version("brotli")),
        "lz4": getattr(lz4, "__version__", _version("lz4")),
        "node": node.strip(),
        "commit": commit,
    }


def _version(dist: str) -> str:
    from importlib.metadata import version

    try:
        return version(dist)
    except Exception:
        return "?"


def selected_ops(spec: str, outputs_only: bool = False) -> list[Op]:
    """The operations asked for (every default one when none is), with the floors their
    ratios need; in the table's order."""
    if spec:
        names = {n.strip() for n in spec.split(",") if n.strip()}
        unknown = sorted(names - set(OPS))
        if unknown:
            raise SystemExit(
                f"unknown operation(s): {', '.join(unknown)} (known: {', '.join(OPS)})"
            )
    else:
        names = {op.name for op in OP_LIST if op.default}
    if outputs_only:
        return [op for op in OP_LIST if op.name in names and op.output]
    chosen = [OPS[n] for n in names]
    if any(op.against in ("floor", "pair") or op.kind == "cli" for op in chosen):
        names |= {"decompress", "decode_gc_off"}
    if any(op.against in ("pair", "same") for op in chosen):
        names |= {"decompress", "decode_gc_off"}
    if any(op.against == "pair" for op in chosen):
        names |= {"decompress_edited", "decode_edited"}
    if any(op.against == "json" for op in chosen):
        names.add("json_floor")
    if any(op.against == "encode" for op in chosen):
        names.add("encode_compress")
    return [op for op in OP_LIST if op.name in names]


def run(args: argparse.Namespace) -> dict[str, Any]:
    from rich.console import Console

    console = Console(stderr=True)
    runs = [("synthetic", int(s)) for s in args.sizes.split(",") if s.strip()]
    runs += [("real", int(s)) for s in args.real.split(",") if s.strip()]
    codecs = args.codecs.split(",")
    ops = selected_ops(args.ops, args.outputs_only)
    started = time.time()
    load_before = os.getloadavg()
    results: list[dict[str, Any]] = []
    metas: dict[str, dict[str, Any]] = {}
    world_ops = [op for op in ops if op.kind != "process"]
    for family_name, world_size in runs:
        family = FAMILIES[family_name]
        meta = family.ensure(world_size, codecs, console.print)
        metas[family.path_for(world_size, "brotli").stem] = meta
        # Rows name a world by its slots, in either family.
        size = meta["slots"] if family_name == "real" else world_size
        reps = (
            1
            if args.outputs_only
            else args.reps or (5 if size <= 1_000 else 3 if size <= 10_000 else 1)
        )
        for codec in codecs:
            path = family.path_for(world_size, codec)
            needs = {n for op in world_ops for n in op.needs}
            derived = _derived(family, world_size, codec, meta, needs, console.print)
            fields = {
                "world": path.name,
                "edited": derived.get("edited", {}).get("name", ""),
                "form": derived.get("form", {}).get("name", ""),
                "extract_1": meta["extract_1_id"],
                "extract_10": meta["extract_id"],
            }
            ctx = {
                "world": path.name,
                "codec": codec,
                "meta": meta,
                "ext": path.suffix,
                "fields": fields,
                **{k: v["name"] for k, v in derived.items()},
            }
            bases = {
                "bson": meta["bson_bytes"],
                "json": derived.get("form", {}).get("bytes"),
                "pair": meta["bson_bytes"] + derived.get("edited", {}).get("bson_bytes", 0),
                "same": 2 * meta["bson_bytes"],
            }
            for op in world_ops:
                t0 = time.perf_counter()
                scratch = Path(tempfile.mkdtemp(prefix="bench-", dir=worlds.WORLDS))
                try:
                    op_reps = reps if args.outputs_only else max(reps, op.min_reps)
                    out = run_child(op, ctx, op_reps, args.timeout, scratch, args.profile)
                finally:
                    shutil.rmtree(scratch, ignore_errors=True)
                row = result_row(size, codec, op.name, out, bases.get(op.memory_of or ""))
                row["family"] = family_name
                if op.memory_of:
                    row["memory_of"] = op.memory_of
                results.append(row)
                console.print(
                    f"  {family_name:<9} {size:>7} {codec:<6} {op.name:<17} {brief(row)} "
                    f"[dim]({time.perf_counter() - t0:.0f} s)[/dim]"
                )
            if codec == "brotli" and not args.no_js and not args.outputs_only:
                out = run_js(path, reps, args.timeout)
                row = result_row(size, codec, JS_PEER, out, meta["bson_bytes"])
                row["family"] = family_name
                results.append(row)
                line = f"{family_name:<9} {size:>7} {codec:<6} {JS_PEER:<17} {brief(row)}"
                console.print(f"  {line}")
            add_ratios(results, family_name, size, codec)
    for op in ops:
        if op.kind == "process":
            out = run_process(op, PROCESS_REPS, args.timeout)
            row = result_row(0, "-", op.name, out, None)
            results.append(row)
            console.print(f"  {'-':>7} {'-':<6} {op.name:<17} {brief(row)}")
    report = {
        "generated": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started)),
        "duration_s": round(time.time() - started, 1),
        "machine": machine(),
        "load_average": {"before": load_before, "after": os.getloadavg()},
        "uptime": _uptime(),
        "floor": "decompress (library call) + bson.decode with the cyclic GC disabled",
        "worlds": {str(k): v for k, v in metas.items()},
        "results": results,
    }
    report["targets"] = evaluate(results)
    return report


def _uptime() -> str:
    """What ``uptime`` says at the end of the run (the machine is shared)."""
    with contextlib.suppress(OSError):
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    return ""


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        child(json.loads(sys.argv[2]))
        return
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--sizes",
        default=",".join(str(s) for s in worlds.SIZES),
        help="synthetic worlds, in slots (comma-separated; empty: none)",
    )
    parser.add_argument(
        "--real",
        default=str(realworld.DEFAULT_MIB),
        help="real-shaped worlds, in MiB of BSON (comma-separated; empty: none)",
    )
    parser.add_argument("--codecs", default="brotli", help="comma-separated (targets: brotli)")
    parser.add_argument(
        "--ops",
        default="",
        help="comma-separated operations (default: the targets' and their floors'); "
        f"known: {', '.join(OPS)}",
    )
    parser.add_argument("--reps", type=int, default=0, help="repetitions (default by size)")
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--no-js", action="store_true", help="leave out the JS peer")
    parser.add_argument("--json", default=str(RESULTS / "benchmarks.json"))
    parser.add_argument("--plot", default=str(RESULTS / "performance.png"))
    parser.add_argument(
        "--markdown",
        nargs="?",
        const=str(RESULTS / "benchmarks.json"),
        metavar="RESULTS",
        help="print the tables for docs/performance.md from a results file, and stop",
    )
    parser.add_argument(
        "--outputs-only",
        action="store_true",
        help="only each operation's output sha256 (one run each), to check byte-identity "
        "before and after a change; writes no results file",
    )
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="TOP",
        help="instead of timing: each operation once under cProfile (its TOP functions by own "
        "time, printed) and once under tracemalloc (the peak of Python's allocations)",
    )
    args = parser.parse_args()
    if args.markdown:
        sys.stdout.write(markdown(json.loads(Path(args.markdown).read_text())))
        return
    report = run(args)
    if args.outputs_only:
        print_outputs(report)
        return
    if args.profile:
        print_profiles(report)
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
        return
    Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    print_table(report)
    if args.plot:
        plot(report, Path(args.plot))


if __name__ == "__main__":
    main()
