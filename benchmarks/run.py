"""The benchmark run: every operation on every world, timed against the floor in one run.

``python benchmarks/run.py`` (``make bench``) generates or reuses the worlds
(:mod:`benchmarks.worlds`), then for each world size and codec runs each operation in a fresh
subprocess: the process imports everything, records its max RSS as the baseline, runs the
operation once for the peak memory (max RSS minus baseline), then repeats it for the time (best
of N).  Every time is also given as a ratio to the **floor** of the same file measured in the
same run: decompressing alone (the compression library called directly) plus ``bson.decode``
with the cyclic garbage collector disabled around it.  Writing is compared with ``bson.encode``
+ the same compressor instead.  An operation whose module does not exist yet is reported as
missing, not skipped silently.

Output: a table on the terminal, ``docs/benchmarks.json`` and ``docs/performance.png``.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import platform
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import worlds  # noqa: E402  (a sibling script, not a package)

MAX_SIZE = 4 << 30

# -- operations (run inside the child process) ------------------------------------------------


class Missing(Exception):
    """The operation's module is not there (yet)."""


class World:
    """What an operation gets: the archive bytes, its name, its codec and the world's facts."""

    def __init__(self, path: Path, codec: str, meta: dict[str, Any]) -> None:
        self.path = path
        self.name = path.name
        self.codec = codec
        self.meta = meta
        self.data = path.read_bytes()
        self._bson: bytes | None = None
        self._doc: dict[str, Any] | None = None

    @property
    def bson(self) -> bytes:
        """The BSON bytes (prepared outside the timed part)."""
        if self._bson is None:
            self._bson = _decompress(self)
        return self._bson

    @property
    def doc(self) -> dict[str, Any]:
        if self._doc is None:
            import bson

            self._doc = bson.decode(self.bson)
        return self._doc


def _payload(w: World) -> bytes:
    data = w.data
    assert data[:4] == b"FrDT" and data[8] < 0x80
    return data[9:]


def _decompress(w: World) -> bytes:
    """The library call alone (no limit checks, no streaming): the cheapest way to the BSON."""
    payload = _payload(w)
    if w.codec == "brotli":
        import brotli

        return bytes(brotli.decompress(payload))
    if w.codec == "lzma":
        import lzma
        import struct

        props, size = payload[:5], struct.unpack_from("<q", payload, 5)[0]
        d = props[0]
        lc, rest = d % 9, d // 9
        lp, pb = rest % 5, rest // 5
        dict_size = struct.unpack_from("<I", props, 1)[0]
        filters = [{"id": lzma.FILTER_LZMA1, "lc": lc, "lp": lp, "pb": pb, "dict_size": dict_size}]
        dec = lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=filters)
        return dec.decompress(payload[21:], max_length=size)
    if w.codec == "lz4":
        import lz4.block

        out = []
        pos, end = 0, len(payload)
        while pos < end:
            flags, pos = _varint(payload, pos)
            original, pos = _varint(payload, pos)
            if flags & 1:
                size, pos = _varint(payload, pos)
                out.append(
                    lz4.block.decompress(payload[pos : pos + size], uncompressed_size=original)
                )
                pos += size
            else:
                out.append(payload[pos : pos + original])
                pos += original
        return b"".join(out)
    raise ValueError(w.codec)


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def _load(w: World) -> Any:
    import brson

    return brson.loads(w.data, name=w.name, max_size=MAX_SIZE)


def op_decompress(w: World) -> Any:
    return len(_decompress(w))


def op_unpack(w: World) -> Any:
    from brson.container import unpack

    return len(unpack(w.data, w.name, MAX_SIZE)[1])


def _decode(w: World, collector: bool) -> Any:
    import bson

    data = w.bson
    paused = gc.isenabled()
    if not collector:
        gc.disable()
    try:
        doc = bson.decode(data)
    finally:
        if paused:
            gc.enable()
    return len(doc)


def op_decode_gc_off(w: World) -> Any:
    return _decode(w, collector=False)


def op_decode_gc_on(w: World) -> Any:
    return _decode(w, collector=True)


def op_encode_compress(w: World) -> Any:
    """The writing floor: ``bson.encode`` of the decoded document + brson's compressor
    (the same settings ``dumps`` uses, so only the tree serialization differs)."""
    import bson

    import brson

    return len(brson.dumps(bson.encode(w.doc), w.codec))


def op_info(w: World) -> Any:
    from brson.cli.archive import summary

    facts = summary(_load(w), str(w.path))
    assert facts["slots"] == w.meta["slots"], facts
    return facts["slots"]


def op_load_walk(w: World) -> Any:
    tree = _load(w)
    slots = 0
    for slot in tree.walk():
        slot.name  # noqa: B018
        for component in slot.components:
            component.type  # noqa: B018
        slots += 1
    assert slots == w.meta["slots"], slots
    return slots


def op_materialize(w: World) -> Any:
    """Every member's value: slot members and every field of every component (SyncLists as
    lists of values)."""
    tree = _load(w)
    members = 0
    for slot in tree.walk():
        _ = (
            slot.name,
            slot.tag,
            slot.active,
            slot.position,
            slot.rotation,
            slot.scale,
            slot.order_offset,
        )
        for component in slot.components:
            component.type  # noqa: B018
            for member in component.fields.values():
                member.value  # noqa: B018
                members += 1
    return members


def op_models(w: World) -> Any:
    """Every component as a validated pydantic model (``Component.model()``)."""
    tree = _load(w)
    count = 0
    for component in tree.components():
        component.model()
        count += 1
    return count


def op_ids(w: World) -> Any:
    """The full ID index: every element that has an ID, every ID-shaped value."""
    tree = _load(w)
    ids = tree.ids
    return len(ids.defined) + len(ids.values)


def _graph(w: World) -> Any:
    try:
        from brson.graph.refs import ReferenceGraph
    except ImportError as exc:
        raise Missing("brson.graph.refs") from exc
    tree = _load(w)
    graph = ReferenceGraph.build(tree)
    graph.references_to(tree.root)  # builds the by-target index
    return graph


def op_refs(w: World) -> Any:
    """The full reference index both ways (``brson.graph.refs``): every ID-shaped value as a
    reference, internal or external, in file order and by target ID."""
    return len(_graph(w))


def op_refs_located(w: World) -> Any:
    """The graph plus every reference's source element and every internal target's element
    materialized (``locate_all``): what printing every reference with paths needs."""
    graph = _graph(w)
    graph.locate_all()
    return len(graph)


def op_dumps(w: World) -> Any:
    import brson

    tree = _load(w)
    return len(brson.dumps(tree, w.codec))


def op_dumps_edited(w: World) -> Any:
    """Load, rename 1% of the slots (spread over the tree), write: every dirty ancestor is
    re-assembled and the whole payload compressed again."""
    import brson

    tree = _load(w)
    for i, slot in enumerate(tree.walk()):
        if i % 100 == 50:
            slot.name = f"edited {i}"
    return len(brson.dumps(tree, w.codec))


def op_validate(w: World) -> Any:
    """``validate`` of the archive bytes, as ``brson validate FILE`` does (reading included)."""
    try:
        from brson.ops.validate import validate
    except ImportError as exc:
        raise Missing("brson.ops.validate") from exc
    return len(validate(w.data, name=w.name, max_size=MAX_SIZE))


def op_extract(w: World) -> Any:
    """Extract the ~10% subtree the generator picked and write it with the same codec."""
    try:
        import brson.ops.extract
    except ImportError as exc:
        raise Missing("brson.ops.extract") from exc
    import brson

    tree = _load(w)
    part = tree.extract(w.meta["extract_id"])
    return len(brson.dumps(part, w.codec))


def op_export_godot(w: World) -> Any:
    """The Godot 4 scene of the whole tree, as text (``brson export-godot -o x.tscn``)."""
    try:
        from brson.godot.export import export_scene
    except ImportError as exc:
        raise Missing("brson.godot.export") from exc
    return len(export_scene(_load(w), 4).tscn())


OPS: dict[str, Callable[[World], Any]] = {
    "decompress": op_decompress,
    "decode_gc_off": op_decode_gc_off,
    "decode_gc_on": op_decode_gc_on,
    "encode_compress": op_encode_compress,
    "unpack": op_unpack,
    "info": op_info,
    "load_walk": op_load_walk,
    "materialize": op_materialize,
    "models": op_models,
    "ids": op_ids,
    "refs": op_refs,
    "refs_located": op_refs_located,
    "validate": op_validate,
    "dumps": op_dumps,
    "dumps_edited": op_dumps_edited,
    "extract": op_extract,
    "export_godot": op_export_godot,
}
FLOOR_OPS = ("decompress", "decode_gc_off", "decode_gc_on", "encode_compress")
#: What each operation's ratio is taken against.
AGAINST = {
    "dumps": "encode_compress",
    "dumps_edited": "encode_compress",
    "encode_compress": "encode_compress",
}
DESCRIPTION = {
    "decompress": "decompress alone (library call)",
    "decode_gc_off": "bson.decode, collector off",
    "decode_gc_on": "bson.decode, collector on",
    "encode_compress": "bson.encode + compress",
    "unpack": "brson container.unpack (limits, streaming)",
    "info": "brson info (summary)",
    "load_walk": "load + walk (name, components, type)",
    "materialize": "every member's value (lazy Member nodes)",
    "models": "every member as a model (Component.model())",
    "ids": "full ID index (tree.ids)",
    "refs": "reference index both ways (graph.refs)",
    "refs_located": "+ every source and target located",
    "validate": "validate",
    "dumps": "dumps, unmodified",
    "dumps_edited": "dumps, 1% of slots renamed",
    "extract": "extract 10% subtree + dumps",
    "export_godot": "export-godot",
    "js_peer": "Node zlib + BSON.deserialize",
}
#: Targets on the largest world: (op, limit, what is compared).
TARGETS = [
    ("info", 1.0, "ratio"),
    ("load_walk", 1.0, "ratio"),
    ("ids", 3.0, "ratio"),
    ("refs", 3.0, "ratio"),
    ("refs_located", 3.0, "ratio"),
    ("validate", 3.0, "ratio"),
    ("models", 3.0, "ratio"),  # issue 4: full materialization, every member as a model
    ("dumps", 0.2, "ratio"),
    ("dumps_edited", 1.5, "ratio"),
    ("load_walk", 3.0, "memory"),
]
GROWTH_LIMIT = 11.0


def _max_rss() -> int:
    """Peak resident memory of this process.  VmHWM where Linux has it: ``ru_maxrss`` keeps
    the high-water mark of the image before exec (the parent's, for a forked child)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def child(op: str, path: str, codec: str, meta_path: str, reps: int) -> None:
    """Run one operation in this (fresh) process and print one JSON line."""
    # Import everything first so the baseline is the interpreter with its imports.
    import bson  # noqa: F401

    import brson
    import brson.cli.archive
    import brson.model.documents
    import brson.model.ids  # noqa: F401

    for optional in (
        "brson.ops.validate",
        "brson.ops.extract",
        "brson.graph.refs",
        "brson.godot.export",
    ):
        with contextlib.suppress(ImportError):
            __import__(optional)
    baseline = _max_rss()
    meta = json.loads(Path(meta_path).read_text())
    world = World(Path(path), codec, meta)
    fn = OPS[op]
    if op in ("decode_gc_off", "decode_gc_on"):
        world.bson  # noqa: B018 - prepared outside the measurement
        baseline = _max_rss()
    elif op == "encode_compress":
        world.doc  # noqa: B018
        world._bson = None
        gc.collect()
        baseline = _max_rss()
    times, cpu = [], []
    try:
        for _ in range(reps):
            t0, c0 = time.perf_counter(), time.process_time()
            result = fn(world)
            cpu.append(time.process_time() - c0)
            times.append(time.perf_counter() - t0)
            if len(times) == 1:
                peak = _max_rss() - baseline
            gc.collect()
    except Missing as exc:
        print(json.dumps({"missing": str(exc)}))
        return
    print(json.dumps({"times": times, "cpu": cpu, "peak_rss": peak, "result": result}))


# -- the driver -------------------------------------------------------------------------------


def _run_child(
    op: str, path: Path, codec: str, meta_path: Path, reps: int, timeout: float
) -> dict[str, Any]:
    cmd = [
        sys.executable,
        str(Path(__file__)),
        "--child",
        op,
        str(path),
        codec,
        str(meta_path),
        str(reps),
    ]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {"error": " | ".join(tail)}
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def _run_js(path: Path, reps: int, timeout: float) -> dict[str, Any]:
    peer = HERE / "js" / "peer.mjs"
    if not (HERE / "js" / "node_modules" / "bson").is_dir():
        return {"missing": "npm install --prefix benchmarks/js (make bench does it)"}
    cmd = ["node", "--max-old-space-size=16000", str(peer), str(path), str(reps)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except (subprocess.TimeoutExpired, FileNotFoundError) as exc:
        return {"error": str(exc)}
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1:]}
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    return {
        "times": [out["total"]],
        "cpu": [out["cpu"]],
        "peak_rss": out["peak_rss"],
        "detail": out,
    }


def machine() -> dict[str, Any]:
    import brotli
    import bson
    import lz4

    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = int(line.split()[1]) * 1024
    except OSError:
        pass
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    return {
        "platform": platform.platform(),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": round(mem / 2**30, 1),
        "python": platform.python_version(),
        "pymongo_bson": bson.__version__ if hasattr(bson, "__version__") else _version("pymongo"),
        "brotli": getattr(brotli, "__version__", _version("brotli")),
        "lz4": getattr(lz4, "__version__", _version("lz4")),
        "node": node,
    }


def _version(dist: str) -> str:
    from importlib.metadata import version

    try:
        return version(dist)
    except Exception:
        return "?"


def run(args: argparse.Namespace) -> dict[str, Any]:
    from rich.console import Console

    console = Console(stderr=True)
    sizes = [int(s) for s in args.sizes.split(",")]
    codecs = args.codecs.split(",")
    big_codecs = args.big_codecs.split(",")
    ops = [o for o in args.ops.split(",") if o] if args.ops else list(OPS)
    started = time.time()
    load_before = os.getloadavg()
    results: list[dict[str, Any]] = []
    metas: dict[int, dict[str, Any]] = {}
    for size in sizes:
        size_codecs = codecs if size < 100_000 else [c for c in codecs if c in big_codecs]
        meta = worlds.ensure(size, size_codecs, log=console.print)
        metas[size] = meta
        meta_path = worlds.WORLDS / f"world-{size}.json"
        reps = args.reps or (5 if size <= 1_000 else 3 if size <= 10_000 else 1)
        for codec in size_codecs:
            path = worlds.path_for(size, codec)
            floor: dict[str, float] = {}
            for op in ops:
                if op == "models" and size > args.models_max:
                    continue
                t0 = time.perf_counter()
                out = _run_child(op, path, codec, meta_path, reps, args.timeout)
                row = _row(size, codec, op, out, meta)
                results.append(row)
                if op in FLOOR_OPS and "time_s" in row:
                    floor[op] = row["time_s"]
                console.print(
                    f"  {size:>7} {codec:<6} {op:<16} {_brief(row)} "
                    f"[dim]({time.perf_counter() - t0:.0f} s)[/dim]"
                )
            if codec == "brotli" and not args.no_js:
                out = _run_js(path, reps, args.timeout)
                row = _row(size, codec, "js_peer", out, meta)
                results.append(row)
                console.print(f"  {size:>7} {codec:<6} {'js_peer':<16} {_brief(row)}")
            _ratios(results, size, codec, floor)
    report = {
        "generated": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started)),
        "duration_s": round(time.time() - started, 1),
        "machine": machine(),
        "load_average": {"before": load_before, "after": os.getloadavg()},
        "floor": "decompress (library call) + bson.decode with the cyclic GC disabled",
        "worlds": {str(k): v for k, v in metas.items()},
        "results": results,
    }
    report["targets"] = evaluate(results, max(sizes))
    return report


def _row(
    size: int, codec: str, op: str, out: dict[str, Any], meta: dict[str, Any]
) -> dict[str, Any]:
    row: dict[str, Any] = {"size": size, "codec": codec, "op": op}
    if "missing" in out:
        row["missing"] = out["missing"]
    elif "error" in out:
        row["error"] = out["error"]
    else:
        # CPU time of the process (user + system): the machine may be shared, and waiting
        # for a core is not the operation's cost.  Wall times are kept beside it.
        row["time_s"] = min(out["cpu"])
        row["cpu_s"] = [round(t, 4) for t in out["cpu"]]
        row["wall_s"] = [round(t, 4) for t in out["times"]]
        row["peak_mib"] = round(out["peak_rss"] / 2**20, 1)
        row["peak_per_bson"] = round(out["peak_rss"] / meta["bson_bytes"], 2)
        if "detail" in out:
            row["detail"] = out["detail"]
    return row


def _brief(row: dict[str, Any]) -> str:
    if "time_s" in row:
        return f"{row['time_s']:.3f} s, peak {row['peak_mib']} MiB"
    return f"[yellow]{(row.get('missing') and 'missing: ' + row['missing']) or row.get('error')}"


def _ratios(results: list[dict[str, Any]], size: int, codec: str, floor: dict[str, float]) -> None:
    if "decompress" not in floor or "decode_gc_off" not in floor:
        return
    base = floor["decompress"] + floor["decode_gc_off"]
    for row in results:
        if row["size"] != size or row["codec"] != codec or "time_s" not in row:
            continue
        against = AGAINST.get(row["op"], "floor")
        denominator = base if against == "floor" else floor.get(against)
        row["floor_s"] = round(base, 4)
        if denominator:
            row["ratio"] = round(row["time_s"] / denominator, 3)
            row["ratio_to"] = against


def evaluate(results: list[dict[str, Any]], largest: int) -> list[dict[str, Any]]:
    out = []
    by_key = {(r["size"], r["codec"], r["op"]): r for r in results}
    for (size, codec, op), row in sorted(by_key.items()):
        if size != largest:
            continue
        for t_op, limit, kind in TARGETS:
            if t_op != op:
                continue
            if "time_s" not in row:
                out.append(
                    {
                        "op": op,
                        "codec": codec,
                        "kind": kind,
                        "limit": limit,
                        "value": None,
                        "met": None,
                        "note": row.get("missing") or row.get("error"),
                    }
                )
                continue
            value = row["ratio"] if kind == "ratio" else row["peak_per_bson"]
            out.append(
                {
                    "op": op,
                    "codec": codec,
                    "kind": kind,
                    "limit": limit,
                    "value": value,
                    "met": value <= limit,
                }
            )
        smaller = by_key.get((largest // 10, codec, op))
        if smaller and "time_s" in smaller and "time_s" in row and op not in FLOOR_OPS:
            growth = row["time_s"] / smaller["time_s"]
            out.append(
                {
                    "op": op,
                    "codec": codec,
                    "kind": "growth",
                    "limit": GROWTH_LIMIT,
                    "value": round(growth, 2),
                    "met": growth <= GROWTH_LIMIT,
                }
            )
    return out


# -- output -----------------------------------------------------------------------------------


def print_table(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=max(Console().width, 118))
    table = Table(title="brson benchmarks (ratio: to the floor; dumps: to encode+compress)")
    for col in ("slots", "codec", "operation", "time (s)", "ratio", "peak MiB", "peak/BSON"):
        table.add_column(col, justify="left" if col in ("codec", "operation") else "right")
    previous = None
    for row in report["results"]:
        key = (row["size"], row["codec"])
        if previous is not None and key != previous:
            table.add_section()
        previous = key
        if "time_s" not in row:
            note = f"missing ({row['missing']})" if "missing" in row else f"error: {row['error']}"
            table.add_row(
                f"{row['size']:,}",
                row["codec"],
                DESCRIPTION[row["op"]],
                f"[yellow]{note}",
                "",
                "",
                "",
            )
            continue
        ratio = f"{row['ratio']:.2f}x" if "ratio" in row else ""
        table.add_row(
            f"{row['size']:,}",
            row["codec"],
            DESCRIPTION[row["op"]],
            f"{row['time_s']:.3f}",
            ratio,
            f"{row['peak_mib']:.0f}",
            f"{row['peak_per_bson']:.2f}",
        )
    console.print(table)
    targets = Table(title="targets on the largest world (ratio: CPU time to the floor's)")
    for col in ("operation", "codec", "measure", "limit", "value", "met"):
        targets.add_column(col)
    for t in report["targets"]:
        met = {True: "[green]yes", False: "[red]no", None: "[yellow]n/a"}[t["met"]]
        value = "" if t["value"] is None else f"{t['value']}"
        targets.add_row(t["op"], t["codec"], t["kind"], f"{t['limit']}", value, met)
    console.print(targets)


def markdown(report: dict[str, Any]) -> str:
    """The results as Markdown tables (pasted into docs/performance.md)."""
    lines = [
        "| slots | codec | operation | CPU s | wall s | ratio | peak MiB | peak / BSON |",
        "|---:|---|---|---:|---:|---:|---:|---:|",
    ]
    for row in report["results"]:
        what = DESCRIPTION[row["op"]]
        if "time_s" not in row:
            note = f"missing ({row['missing']})" if "missing" in row else "error"
            lines.append(f"| {row['size']:,} | {row['codec']} | {what} | {note} | | | | |")
            continue
        ratio = f"{row['ratio']:.2f}x" if "ratio" in row else ""
        lines.append(
            f"| {row['size']:,} | {row['codec']} | {what} | {row['time_s']:.3f} | "
            f"{min(row['wall_s']):.3f} | {ratio} | {row['peak_mib']:.0f} | "
            f"{row['peak_per_bson']:.2f} |"
        )
    lines += [
        "",
        "| target (largest world) | codec | measure | limit | value | met |",
        "|---|---|---|---:|---:|---|",
    ]
    for t in report["targets"]:
        met = {True: "yes", False: "**no**", None: "n/a"}[t["met"]]
        value = "" if t["value"] is None else f"{t['value']}"
        lines.append(
            f"| {DESCRIPTION[t['op']]} | {t['codec']} | {t['kind']} | {t['limit']} | "
            f"{value} | {met} |"
        )
    return "\n".join(lines) + "\n"


def plot(report: dict[str, Any], out: Path, codec: str = "brotli") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in report["results"] if r["codec"] == codec and "time_s" in r]
    ops = [op for op in [*OPS, "js_peer"] if any(r["op"] == op for r in rows)]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5.5))
    cmap = plt.get_cmap("tab20")
    for i, op in enumerate(ops):
        pts = sorted((r["size"], r["time_s"], r.get("ratio")) for r in rows if r["op"] == op)
        style = "--" if op in FLOOR_OPS else "-"
        xs = [p[0] for p in pts]
        left.plot(xs, [p[1] for p in pts], style, marker="o", color=cmap(i), label=op)
        if op not in FLOOR_OPS or op == "decode_gc_on":
            rx = [p[0] for p in pts if p[2] is not None]
            right.plot(
                rx,
                [p[2] for p in pts if p[2] is not None],
                style,
                marker="o",
                color=cmap(i),
                label=op,
            )
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_xlabel("world size (slots)")
        ax.grid(True, which="both", alpha=0.3)
    left.set_yscale("log")
    left.set_ylabel("time (s)")
    left.set_title(f"time per operation ({codec})")
    right.set_yscale("log")
    right.set_ylabel("ratio (to the floor; dumps to encode+compress)")
    right.set_title("ratio to the floor of the same file")
    right.axhline(1.0, color="black", lw=0.8)
    left.legend(fontsize=7, ncol=2)
    right.legend(fontsize=7, ncol=2)
    fig.suptitle(
        f"brson on synthetic worlds - {report['machine']['cpu']}, "
        f"{report['machine']['cores']} cores, Python {report['machine']['python']}"
    )
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main() -> None:
    if sys.argv[1:2] == ["--markdown"]:  # tables from a results file
        source = sys.argv[2] if len(sys.argv) > 2 else str(ROOT / "docs" / "benchmarks.json")
        sys.stdout.write(markdown(json.loads(Path(source).read_text())))
        return
    if sys.argv[1:2] == ["--child"]:
        op, path, codec, meta_path, reps = sys.argv[2:7]
        child(op, path, codec, meta_path, int(reps))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(str(s) for s in worlds.SIZES))
    parser.add_argument("--codecs", default=",".join(worlds.CODECS))
    parser.add_argument(
        "--big-codecs",
        default="brotli,lz4",
        help="codecs run on the 100k world (LZMA there takes ~15 min a write)",
    )
    parser.add_argument("--ops", default="", help="comma-separated subset of operations")
    parser.add_argument("--reps", type=int, default=0, help="repetitions (default by size)")
    parser.add_argument(
        "--models-max",
        type=int,
        default=100_000,
        help="largest world for Component.model() of everything",
    )
    parser.add_argument("--timeout", type=float, default=1200)
    parser.add_argument("--no-js", action="store_true")
    parser.add_argument("--json", default=str(ROOT / "docs" / "benchmarks.json"))
    parser.add_argument("--plot", default=str(ROOT / "docs" / "performance.png"))
    args = parser.parse_args()
    report = run(args)
    Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    print_table(report)
    if args.plot:
        plot(report, Path(args.plot))


if __name__ == "__main__":
    main()
