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
import gc
import hashlib
import importlib
import json
import os
import pkgutil
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
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

MAX_SIZE = 4 << 30
#: The worlds the targets are checked on (the largest world run, when neither is).
TARGET_SIZES = (10_000, 100_000)
#: Repetitions of a whole-process operation (best of).
PROCESS_REPS = 5

# -- what an operation gets (inside the child process) ----------------------------------------


class World:
    """The world an operation runs on: paths relative to the worlds folder (the child's
    working directory, so outputs that name the file are the same in every checkout)."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.path = Path(spec["world"])
        self.name = self.path.name
        self.codec: str = spec["codec"]
        self.meta: dict[str, Any] = spec["meta"]
        self._data: bytes | None = None
        self._bson: bytes | None = None
        self._doc: dict[str, Any] | None = None
        self._edited_bson: bytes | None = None

    @property
    def data(self) -> bytes:
        if self._data is None:
            self._data = self.path.read_bytes()
        return self._data

    @property
    def bson(self) -> bytes:
        """The BSON bytes (prepared outside the timed part)."""
        if self._bson is None:
            self._bson = _decompress(self.data, self.codec)
        return self._bson

    @property
    def doc(self) -> dict[str, Any]:
        if self._doc is None:
            import bson

            self._doc = bson.decode(self.bson)
        return self._doc

    @property
    def edited(self) -> Path:
        return Path(self.spec["edited"])

    @property
    def edited_bson(self) -> bytes:
        if self._edited_bson is None:
            self._edited_bson = _decompress(self.edited.read_bytes(), self.codec)
        return self._edited_bson


def _decompress(data: bytes, codec: str) -> bytes:
    """The library call alone (no limit checks, no streaming): the cheapest way to the BSON."""
    assert data[:4] == b"FrDT" and data[8] < 0x80
    payload = data[9:]
    if codec == "brotli":
        import brotli

        return bytes(brotli.decompress(payload))
    if codec == "lzma":
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
    if codec == "lz4":
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
    raise ValueError(codec)


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def _decode(data: bytes, collector: bool) -> int:
    import bson

    paused = gc.isenabled()
    if not collector:
        gc.disable()
    try:
        doc = bson.decode(data)
    finally:
        if paused:
            gc.enable()
    return len(doc)


def _load(w: World) -> Any:
    """The tree, as a user's script gets it: ``brson.load`` of the file (reading included)."""
    import brson

    return brson.load(w.path, max_size=MAX_SIZE)


# -- fn operations ----------------------------------------------------------------------------


def op_decompress(w: World) -> Any:
    return len(_decompress(w.data, w.codec))


def op_decode_gc_off(w: World) -> Any:
    return _decode(w.bson, collector=False)


def op_decode_gc_on(w: World) -> Any:
    return _decode(w.bson, collector=True)


def op_decompress_edited(w: World) -> Any:
    return len(_decompress(w.edited.read_bytes(), w.codec))


def op_decode_edited(w: World) -> Any:
    return _decode(w.edited_bson, collector=False)


def op_json_floor(w: World) -> Any:
    """``json.loads`` + ``bson.encode`` of the JSON form: the plain way from that text to BSON
    (``$numberLong`` and friends stay sub-documents; the cost is what counts)."""
    import bson

    return len(bson.encode(json.loads(Path(w.spec["form"]).read_bytes())))


def op_encode_compress(w: World) -> Any:
    """The writing floor: ``bson.encode`` of the decoded document + brson's compressor
    (the same settings ``dumps`` uses, so only the tree serialization differs)."""
    import bson

    import brson

    return len(brson.dumps(bson.encode(w.doc), w.codec))


def op_load_walk(w: World) -> Any:
    """A user's own loop: every slot's name and every component's type, collector on."""
    tree = _load(w)
    slots = 0
    for slot in tree.walk():
        slot.name  # noqa: B018
        for component in slot.components:
            component.type  # noqa: B018
        slots += 1
    assert slots == w.meta["slots"], slots
    return slots


def op_member_values(w: World) -> Any:
    """Every member's value read the natural way (the loop users write, verbatim)."""
    tree = _load(w)
    members = 0
    for c in tree.components():
        for m in c.fields.values():
            m.value  # noqa: B018
            members += 1
    return members


def op_info(w: World) -> Any:
    from brson.cli.archive import summary

    facts = summary(_load(w), str(w.path))
    return facts["slots"]


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
    ids = _load(w).ids
    return len(ids.defined) + len(ids.values)


def op_refs_index(w: World) -> Any:
    """The reference index both ways, without locating sources and targets."""
    from brson.graph.refs import ReferenceGraph

    tree = _load(w)
    graph = ReferenceGraph.build(tree)
    graph.references_to(tree.root)  # builds the by-target index
    return len(graph)


def op_dumps(w: World) -> Any:
    import brson

    return len(brson.dumps(_load(w), w.codec))


def op_dumps_edited(w: World) -> Any:
    """Load, rename 1% of the slots (spread over the tree), write."""
    import brson

    tree = _load(w)
    for i, slot in enumerate(tree.walk()):
        if i % 100 == 50:
            slot.name = f"edited {i}"
    return len(brson.dumps(tree, w.codec))


# -- the operations ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Op:
    """One measured operation.

    ``argv`` (cli and process kinds) may name ``{world}``, ``{edited}``, ``{form}``,
    ``{output}`` (a file in a scratch folder, named by ``output``), ``{extract_1}`` and
    ``{extract_10}`` (slot IDs), ``{brson}`` (the console script) and ``{python}``.
    ``output`` is ``"stdout"``, a file name, or None (nothing to hash).  ``against`` names the
    time's denominator (``floor``, ``pair``: both diff files' floors, ``json``, ``encode``) and
    ``memory_of`` the memory's (``bson``, ``pair``, ``json``).  ``needs`` are derived inputs
    prepared before the run (``edited``: the world's second version, ``form``: its JSON form).
    ``bound`` adds the output's lower bound (see the field).
    """

    name: str
    what: str
    kind: str = "fn"
    fn: Callable[[World], Any] | None = None
    prepare: Callable[[World], Any] | None = None
    argv: tuple[str, ...] = ()
    output: str | None = None
    against: str | None = "floor"
    memory_of: str | None = "bson"
    needs: tuple[str, ...] = ()
    exit_codes: tuple[int, ...] = (0,)
    default: bool = True
    #: Repetitions at least (best of), whatever the size: a floor's first run in a fresh process
    #: pays for first touching its memory (bson.decode of the 100k world, one process: 11.2,
    #: 8.0, 6.1 s CPU), and a floor that high flatters every ratio over it.
    min_reps: int = 1
    #: Also time writing the output's exact bytes (compressing its payload with the codec and
    #: settings it was written with): with decompressing the input, a lower bound of any
    #: implementation that produces the same file.
    bound: bool = False


def _bson_of(w: World) -> None:
    w.bson  # noqa: B018


def _edited_bson_of(w: World) -> None:
    w.edited_bson  # noqa: B018


def _doc_of(w: World) -> None:
    w.doc  # noqa: B018
    w._bson = None


def _data_of(w: World) -> None:
    w.data  # noqa: B018


def _edited_data_of(w: World) -> None:
    # Read once so the page cache holds it, as it holds the world for op_decompress.
    w.edited.read_bytes()


OP_LIST = [
    # The floors.
    Op(
        "decompress",
        "decompress alone (library call)",
        fn=op_decompress,
        prepare=_data_of,
        against=None,
        min_reps=3,
    ),
    Op(
        "decode_gc_off",
        "bson.decode, collector off",
        fn=op_decode_gc_off,
        prepare=_bson_of,
        against=None,
        min_reps=3,
    ),
    Op(
        "decode_gc_on",
        "bson.decode, collector on",
        fn=op_decode_gc_on,
        prepare=_bson_of,
    ),
    Op(
        "decompress_edited",
        "decompress alone, edited world",
        fn=op_decompress_edited,
        prepare=_edited_data_of,
        against=None,
        needs=("edited",),
        min_reps=3,
    ),
    Op(
        "decode_edited",
        "bson.decode (GC off), edited world",
        fn=op_decode_edited,
        prepare=_edited_bson_of,
        against=None,
        needs=("edited",),
        min_reps=3,
    ),
    Op(
        "json_floor",
        "json.loads + bson.encode of the JSON",
        fn=op_json_floor,
        against=None,
        memory_of="json",
        needs=("form",),
        min_reps=3,
    ),
    Op(
        "encode_compress",
        "bson.encode + compress",
        fn=op_encode_compress,
        prepare=_doc_of,
        against="encode",
        default=False,
    ),
    # The targets' operations.
    Op(
        "extract_1",
        "extract 1% subtree + closure, write",
        kind="cli",
        argv=("extract", "{world}", "--slot", "{extract_1}", "-o", "{output}"),
        output="extract-1{ext}",
        bound=True,
    ),
    Op(
        "extract_10",
        "extract 10% subtree + closure, write",
        kind="cli",
        argv=("extract", "{world}", "--slot", "{extract_10}", "-o", "{output}"),
        output="extract-10{ext}",
        bound=True,
    ),
    # Not a target: the same 1% subtree without the components it references from elsewhere
    # (on this world its closure is 41% of the world at 100k slots; docs/performance.md).
    Op(
        "extract_1_alone",
        "extract 1% subtree, no dependencies, write",
        kind="cli",
        argv=("extract", "{world}", "--slot", "{extract_1}", "--no-dependencies", "-o", "{output}"),
        output="extract-1-alone{ext}",
        bound=True,
    ),
    Op(
        "refs",
        "refs (every reference, paths printed)",
        kind="cli",
        argv=("refs", "{world}"),
        output="stdout",
    ),
    Op(
        "refs_json",
        "refs --json",
        kind="cli",
        argv=("refs", "--json", "{world}"),
        output="stdout",
    ),
    Op(
        "validate",
        "validate --format json",
        kind="cli",
        argv=("validate", "--isolated", "--format", "json", "{world}"),
        output="stdout",
        exit_codes=(0, 1),
    ),
    Op(
        "member_values",
        "every member's value (natural loop)",
        fn=op_member_values,
    ),
    Op(
        "to_json",
        "to-json -o FILE",
        kind="cli",
        argv=("to-json", "{world}", "-o", "{output}"),
        output="world.json",
    ),
    Op(
        "from_json",
        "from-json -o FILE.bson",
        kind="cli",
        argv=("from-json", "{form}", "-o", "{output}"),
        output="world.bson",
        against="json",
        needs=("form",),
    ),
    Op(
        "export_godot",
        "export-godot -o FILE.tscn (Godot 4)",
        kind="cli",
        argv=("export-godot", "{world}", "-o", "{output}"),
        output="world.tscn",
    ),
    Op(
        "export_godot3",
        "export-godot --godot 3 -o FILE.tscn",
        kind="cli",
        argv=("export-godot", "{world}", "--godot", "3", "-o", "{output}"),
        output="world3.tscn",
    ),
    Op(
        "export_gltf",
        "export-gltf -o FILE.glb (no mesh assets)",
        kind="cli",
        argv=("export-gltf", "{world}", "-o", "{output}"),
        output="world.glb",
    ),
    Op(
        "diff",
        "diff of two versions (1% edited)",
        kind="cli",
        argv=("diff", "{world}", "{edited}"),
        output="stdout",
        against="pair",
        memory_of="pair",
        needs=("edited",),
        exit_codes=(0, 1),
    ),
    Op(
        "diff_identical",
        "diff of the world with itself",
        kind="cli",
        argv=("diff", "{world}", "{world}"),
        output="stdout",
        against="same",
        memory_of="same",
        exit_codes=(0, 1),
    ),
    Op(
        "load_walk",
        "load + own loop: names, types (GC on)",
        fn=op_load_walk,
    ),
    Op(
        "cli_version",
        "brson --version (whole process)",
        kind="process",
        argv=("{brson}", "--version"),
        against=None,
        memory_of=None,
    ),
    Op(
        "import_brson",
        'python -c "import brson"',
        kind="process",
        argv=("{python}", "-c", "import brson"),
        against=None,
        memory_of=None,
    ),
    # More, on request (--ops).
    Op("info", "brson info's summary", fn=op_info, default=False),
    Op("models", "every component's model()", fn=op_models, default=False),
    Op("ids", "full ID index (tree.ids)", fn=op_ids, default=False),
    Op("refs_index", "reference index (not located)", fn=op_refs_index, default=False),
    Op("dumps", "dumps, unmodified", fn=op_dumps, against="encode", default=False),
    Op(
        "dumps_edited",
        "dumps, 1% of slots renamed",
        fn=op_dumps_edited,
        against="encode",
        default=False,
    ),
]
OPS = {op.name: op for op in OP_LIST}
JS_PEER = "js_peer"
DESCRIPTION = {op.name: op.what for op in OP_LIST}
DESCRIPTION[JS_PEER] = "JS peer: Node zlib + BSON.deserialize"

#: The targets (docs/performance.md), on both families of worlds: (operation, measure, limit).
#: ``time``: CPU time over the denominator the operation names (an operation with a bound
#: may instead stay within BOUND_MARGIN of it, where that is larger); ``memory``: peak over
#: its base; ``growth``: time at 100k over time at 10k; ``seconds``: CPU seconds of a whole
#: process.
TARGETS = [
    ("validate", "time", 1.5),
    ("validate", "memory", 3.0),
    ("refs", "time", 2.0),
    ("refs", "memory", 3.0),
    ("refs_json", "time", 2.0),
    ("refs_json", "memory", 3.0),
    ("to_json", "time", 2.0),
    ("to_json", "memory", 2.0),
    ("from_json", "time", 1.5),
    ("from_json", "memory", 3.0),
    ("diff_identical", "time", 2.0),
    ("diff_identical", "memory", 3.0),
    ("diff", "time", 2.0),
    ("diff", "memory", 3.0),
    ("export_godot3", "time", 2.0),
    ("export_godot3", "memory", 3.0),
    ("export_godot", "time", 2.0),
    ("export_godot", "memory", 3.0),
    ("export_gltf", "time", 2.0),
    ("export_gltf", "memory", 3.0),
    ("extract_1", "time", 1.5),
    ("extract_1", "memory", 3.0),
    ("extract_10", "time", 1.5),
    ("extract_10", "memory", 3.0),
    ("load_walk", "time", 0.5),
    ("load_walk", "growth", 11.0),
    ("load_walk", "memory", 2.5),
    ("cli_version", "seconds", 0.12),
    ("import_brson", "seconds", 0.08),
]
#: An operation that writes an archive meets its time target within this factor of its bound
#: (decompressing the input + compressing the exact output) where that is above the limit.
BOUND_MARGIN = 1.25

# -- the child process ------------------------------------------------------------------------


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


def _import_everything() -> None:
    """Every brson module, so the baseline holds them and no operation pays for an import
    (CLI commands may import their modules lazily)."""
    import bson  # noqa: F401

    import brson

    for module in pkgutil.walk_packages(brson.__path__, "brson."):
        with contextlib.suppress(Exception):
            importlib.import_module(module.name)


@contextlib.contextmanager
def _stdout_to(path: str) -> Iterator[None]:
    """Standard output (the file descriptor, so C-level writes too) into ``path``."""
    sys.stdout.flush()
    saved = os.dup(1)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.close(fd)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def _digest(path: Path) -> dict[str, Any]:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return {"output_sha256": h.hexdigest()[:12], "output_bytes": path.stat().st_size}


def child(spec: dict[str, Any]) -> None:
    """Run one operation in this (fresh) process and print one JSON line."""
    _import_everything()
    op = OPS[spec["op"]]
    world = World(spec)
    argv = [a.format(**spec["fields"]) for a in op.argv]
    output = spec["fields"].get("output")
    stdout_path = str(Path(spec["scratch"]) / "stdout.txt")
    main: Any = None
    if op.kind == "cli":
        from brson.cli.app import main

        with _stdout_to(os.devnull):
            main(["--version"])  # the click command is built once a process
    if op.prepare is not None:
        op.prepare(world)
    gc.collect()
    baseline = _max_rss()
    if spec.get("profile"):

        def once() -> None:
            if op.kind == "cli":
                with _stdout_to(stdout_path):
                    main(argv)
            else:
                assert op.fn is not None
                op.fn(world)

        print(json.dumps(_profiled(once, spec["profile"], baseline)))
        return
    times: list[float] = []
    cpu: list[float] = []
    result: dict[str, Any] = {}
    for rep in range(spec["reps"]):
        if op.kind == "cli":
            with _stdout_to(stdout_path):
                t0, c0 = time.perf_counter(), time.process_time()
                code = main(argv)
                sys.stdout.flush()
                cpu.append(time.process_time() - c0)
                times.append(time.perf_counter() - t0)
            if code not in op.exit_codes:
                tail = Path(stdout_path).read_text(errors="replace").strip().splitlines()[-3:]
                print(json.dumps({"error": f"exit code {code}: {' | '.join(tail)}"}))
                return
            value: Any = code
        else:
            assert op.fn is not None
            t0, c0 = time.perf_counter(), time.process_time()
            value = op.fn(world)
            cpu.append(time.process_time() - c0)
            times.append(time.perf_counter() - t0)
        if rep == 0:
            result["peak_rss"] = _max_rss() - baseline
            result["result"] = value
            if op.output == "stdout":
                result.update(_digest(Path(stdout_path)))
            elif op.output is not None and output:
                result.update(_digest(Path(output)))
        gc.collect()
    if op.bound and output:
        result["write_s"] = _write_time(Path(output))
    print(json.dumps({"times": times, "cpu": cpu, **result}))


def _profiled(once: Callable[[], None], top: int, baseline: int) -> dict[str, Any]:
    """Where one run's time and memory go: its ``top`` functions by own time (cProfile), its
    peak RSS over the baseline, and the peak of Python's own allocations (tracemalloc) in a
    second run (buffers the codecs allocate in C are outside it)."""
    import cProfile
    import pstats
    import tracemalloc

    profile = cProfile.Profile()
    c0 = time.process_time()
    profile.enable()
    once()
    profile.disable()
    cpu = time.process_time() - c0
    peak_rss = _max_rss() - baseline
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    ranked = sorted(stats.items(), key=lambda kv: kv[1][2], reverse=True)[:top]
    functions = [
        {
            "function": f"{Path(file).name}:{line}({name})",
            "calls": calls,
            "own_s": round(own, 3),
            "cumulative_s": round(cumulative, 3),
        }
        for (file, line, name), (_, calls, own, cumulative, _) in ranked
    ]
    gc.collect()
    tracemalloc.start()
    once()
    traced_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {
        "times": [cpu],
        "cpu": [cpu],
        "peak_rss": peak_rss,
        "traced_peak_mib": round(traced_peak / 2**20, 1),
        "profile": functions,
    }


def _write_time(path: Path) -> float:
    """CPU time of compressing the output's payload again into the very bytes written (best of
    two): what writing this output costs whatever made it."""
    from brson.codecs import compress
    from brson.container.frdt import unpack

    data = path.read_bytes()
    container, payload = unpack(data, path.name, max_size=MAX_SIZE)
    best = float("inf")
    for _ in range(2):
        c0 = time.process_time()
        body = compress(container.codec, payload)
        best = min(best, time.process_time() - c0)
    if data[container.header_size :] != body:
        raise SystemExit(f"{path.name}: compressing its payload again gives other bytes")
    return best


# -- the driver -------------------------------------------------------------------------------


def _brson_script() -> str:
    script = Path(sys.executable).parent / "brson"
    return str(script) if script.exists() else "brson"


def _run_child(
    op: Op, ctx: dict[str, Any], reps: int, timeout: float, scratch: Path, profile: int = 0
) -> dict[str, Any]:
    fields = dict(ctx["fields"])
    if op.output and op.output != "stdout":
        fields["output"] = str(scratch / op.output.format(ext=ctx["ext"]))
    spec = {**ctx, "op": op.name, "reps": reps, "fields": fields, "scratch": str(scratch)}
    if profile:
        spec["profile"] = profile
    cmd = [sys.executable, str(Path(__file__)), "--child", json.dumps(spec)]
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, cwd=worlds.WORLDS
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {"error": " | ".join(tail) or f"exit code {proc.returncode}"}
    return dict(json.loads(lines[-1]))


def _run_process(op: Op, reps: int, timeout: float) -> dict[str, Any]:
    """A whole process, best of ``reps``: CPU time (user + system) from the kernel's
    accounting of the child (``wait4``), so start-up and imports are included.  No memory:
    the child's ``ru_maxrss`` starts from this process's size at the fork."""
    fields = {"brson": _brson_script(), "python": sys.executable}
    argv = [a.format(**fields) for a in op.argv]
    cpu, wall = [], []
    for _ in range(reps):
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall.append(time.perf_counter() - t0)
        if proc.returncode != 0:
            return {"error": f"{' '.join(argv)}: exit code {proc.returncode}"}
        cpu.append(usage.ru_utime + usage.ru_stime)
        if time.perf_counter() - t0 > timeout:
            return {"error": f"timed out after {timeout:.0f} s"}
    return {"times": wall, "cpu": cpu}


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
        return {"error": " | ".join(proc.stderr.strip().splitlines()[-1:])}
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    return {**out, "times": [out["total"]], "cpu": [out["cpu"]], "peak_rss": out["peak_rss"]}


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
            data = _decompress(edited.read_bytes(), codec)
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
                    out = _run_child(op, ctx, op_reps, args.timeout, scratch, args.profile)
                finally:
                    shutil.rmtree(scratch, ignore_errors=True)
                row = _row(size, codec, op.name, out, bases.get(op.memory_of or ""))
                row["family"] = family_name
                if op.memory_of:
                    row["memory_of"] = op.memory_of
                results.append(row)
                console.print(
                    f"  {family_name:<9} {size:>7} {codec:<6} {op.name:<17} {_brief(row)} "
                    f"[dim]({time.perf_counter() - t0:.0f} s)[/dim]"
                )
            if codec == "brotli" and not args.no_js and not args.outputs_only:
                out = _run_js(path, reps, args.timeout)
                row = _row(size, codec, JS_PEER, out, meta["bson_bytes"])
                row["family"] = family_name
                results.append(row)
                line = f"{family_name:<9} {size:>7} {codec:<6} {JS_PEER:<17} {_brief(row)}"
                console.print(f"  {line}")
            _ratios(results, family_name, size, codec)
    for op in ops:
        if op.kind == "process":
            out = _run_process(op, PROCESS_REPS, args.timeout)
            row = _row(0, "-", op.name, out, None)
            results.append(row)
            console.print(f"  {'-':>7} {'-':<6} {op.name:<17} {_brief(row)}")
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


def _family(row: dict[str, Any]) -> str:
    """A row's family (results written before real-shaped worlds existed: synthetic)."""
    return str(row.get("family", "synthetic"))


def _row(size: int, codec: str, op: str, out: dict[str, Any], base: int | None) -> dict[str, Any]:
    row: dict[str, Any] = {"size": size, "codec": codec, "op": op}
    if "missing" in out:
        row["missing"] = out["missing"]
    elif "error" in out:
        row["error"] = out["error"]
    else:
        # CPU time of the process (user + system): the machine may be shared, and waiting
        # for a core is not the operation's cost.  Wall times are kept beside it.
        row["time_s"] = round(min(out["cpu"]), 4)
        row["cpu_s"] = [round(t, 4) for t in out["cpu"]]
        row["wall_s"] = [round(t, 4) for t in out["times"]]
        if "peak_rss" in out:
            row["peak_mib"] = round(out["peak_rss"] / 2**20, 1)
            if base:
                row["peak_ratio"] = round(out["peak_rss"] / base, 2)
        for key in ("output_sha256", "output_bytes", "result", "write_s", "traced_peak_mib"):
            if key in out:
                row[key] = out[key]
        if "profile" in out:
            row["profile"] = out["profile"]
        if op == JS_PEER:
            row["detail"] = {k: out[k] for k in ("decompress", "deserialize", "node", "bson")}
    return row


def _brief(row: dict[str, Any]) -> str:
    if "time_s" in row:
        sha = f", output {row['output_sha256']}" if "output_sha256" in row else ""
        peak = f", peak {row['peak_mib']} MiB" if "peak_mib" in row else ""
        return f"{row['time_s']:.3f} s{peak}{sha}"
    return f"[yellow]{(row.get('missing') and 'missing: ' + row['missing']) or row.get('error')}"


def _ratios(results: list[dict[str, Any]], family: str, size: int, codec: str) -> None:
    """Each row's time over its floor and over decompression alone, from this run."""
    mine = [
        r for r in results if _family(r) == family and r["size"] == size and r["codec"] == codec
    ]
    t = {r["op"]: r["time_s"] for r in mine if "time_s" in r}
    floor = (
        t["decompress"] + t["decode_gc_off"]
        if {"decompress", "decode_gc_off"} <= t.keys()
        else None
    )
    pair = None
    if floor and {"decompress_edited", "decode_edited"} <= t.keys():
        pair = floor + t["decompress_edited"] + t["decode_edited"]
    denominators = {
        "floor": floor,
        "pair": pair,
        "same": 2 * floor if floor else None,
        "json": t.get("json_floor"),
        "encode": t.get("encode_compress"),
    }
    # from-json makes the world's BSON again: decompressing the world is the cheapest way there.
    decompress = {k: t.get("decompress") for k in ("floor", "encode", "json")}
    if "decompress" in t and "decompress_edited" in t:
        decompress["pair"] = t["decompress"] + t["decompress_edited"]
    if "decompress" in t:
        decompress["same"] = 2 * t["decompress"]
    for row in mine:
        if "time_s" not in row:
            continue
        op = OPS.get(row["op"])
        against = op.against if op is not None else "floor"
        if floor:
            row["floor_s"] = round(floor, 4)
        if against and denominators.get(against):
            row["ratio"] = round(row["time_s"] / denominators[against], 3)
            row["ratio_to"] = against
        if against and decompress.get(against):
            row["ratio_decompress"] = round(row["time_s"] / decompress[against], 2)
        if "write_s" in row and floor and "decompress" in t:
            # Reading the input and writing the output, nothing in between: no implementation
            # that writes these bytes goes below it.
            row["bound_s"] = round(t["decompress"] + row["write_s"], 4)
            row["bound_ratio"] = round(row["bound_s"] / floor, 3)


def evaluate(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every target on each family's worlds, met or missed: the synthetic 10k and 100k worlds
    run (else the largest), every real-shaped world run."""
    out: list[dict[str, Any]] = []
    families = dict.fromkeys(_family(r) for r in results if r["size"])
    for family in families:
        mine = [r for r in results if _family(r) == family or not r["size"]]
        out += [{"family": family, **t} for t in _evaluate(mine, family)]
    return out


def _evaluate(results: list[dict[str, Any]], family: str) -> list[dict[str, Any]]:
    sizes = sorted({r["size"] for r in results if r["size"]})
    if family == "synthetic":
        checked = [s for s in sizes if s in TARGET_SIZES] or sizes[-1:]
    else:
        checked = sizes
    by_key = {(r["size"], r["codec"], r["op"]): r for r in results}
    codecs = sorted({r["codec"] for r in results if r["codec"] != "-"}, key=lambda c: c != "brotli")
    out: list[dict[str, Any]] = []
    for op, measure, limit in TARGETS:
        if measure == "seconds":
            keys = [(0, "-")] if family == "synthetic" else []
        elif measure == "growth":
            keys = [
                (s, c)
                for c in codecs
                for s in checked
                if s == max(checked) and len(checked) > 1 and family == "synthetic"
            ]
        else:
            keys = [(s, c) for c in codecs for s in checked]
        for size, codec in keys:
            row = by_key.get((size, codec, op))
            if row is None:
                continue
            entry: dict[str, Any] = {
                "op": op,
                "size": size,
                "codec": codec,
                "measure": measure,
                "limit": limit,
                "value": None,
                "met": None,
            }
            if "time_s" not in row:
                entry["note"] = row.get("missing") or row.get("error")
            elif measure == "time":
                entry["value"] = row.get("ratio")
                entry["ratio_decompress"] = row.get("ratio_decompress")
                if "bound_ratio" in row:
                    entry["bound"] = row["bound_ratio"]
                    entry["limit"] = round(max(limit, BOUND_MARGIN * row["bound_ratio"]), 3)
            elif measure == "memory":
                entry["value"] = row.get("peak_ratio")
                entry["output_sha256"] = row.get("output_sha256", "")
            elif measure == "seconds":
                entry["value"] = row["time_s"]
            else:
                smaller = by_key.get((min(checked), codec, op), {})
                if "time_s" in smaller:
                    entry["value"] = round(row["time_s"] / smaller["time_s"], 2)
                    entry["note"] = f"{min(checked):,} -> {size:,} slots"
            if entry["value"] is not None:
                entry["met"] = entry["value"] <= limit
            out.append(entry)
    return out


# -- output -----------------------------------------------------------------------------------

MEASURE = {
    "time": "CPU / floor",
    "memory": "peak / base",
    "growth": "time growth",
    "seconds": "CPU s",
}


def _cells(row: dict[str, Any]) -> list[str]:
    """slots, codec, operation, CPU s, x floor, x decompress, bound, peak MiB, peak / base,
    output."""
    size = f"{row['size']:,}" if row["size"] else "-"
    what = DESCRIPTION.get(row["op"], row["op"])
    if "time_s" not in row:
        note = f"missing ({row['missing']})" if "missing" in row else f"error: {row['error']}"
        return [size, row["codec"], what, note, "", "", "", "", "", ""]
    base = {"json": " (JSON)", "pair": " (both)"}.get(row.get("memory_of", ""), "")
    return [
        size,
        row["codec"],
        what,
        f"{row['time_s']:.3f}",
        f"{row['ratio']:.2f}x" if "ratio" in row else "",
        f"{row['ratio_decompress']:.1f}x" if "ratio_decompress" in row else "",
        f"{row['bound_ratio']:.2f}x" if "bound_ratio" in row else "",
        f"{row['peak_mib']:.0f}" if "peak_mib" in row else "",
        f"{row['peak_ratio']:.2f}{base}" if "peak_ratio" in row else "",
        row.get("output_sha256", ""),
    ]


RESULT_COLUMNS = (
    "slots",
    "codec",
    "operation",
    "CPU s",
    "x floor",
    "x decompress",
    "bound",
    "peak MiB",
    "peak / base",
    "output sha256",
)
#: The targets table of one family: a row an operation and world, time and memory side by side.
FAMILY_COLUMNS = (
    "operation",
    "slots",
    "time",
    "limit",
    "time met",
    "bound",
    "memory",
    "limit",
    "memory met",
    "output sha256",
)
FAMILY_TITLE = {
    "synthetic": "targets on the synthetic worlds",
    "real": "targets on the real-shaped worlds (the real samples tiled)",
}


def family_rows(report: dict[str, Any], family: str) -> list[tuple[list[str], list[bool | None]]]:
    """Each row of one family's targets table, with whether its time and memory were met.
    Time: CPU over the floor (extract: the limit is 1.5, or BOUND_MARGIN x its bound where
    that is larger); memory: peak over the BSON size; growth and whole-process seconds in
    the time column."""
    rows: dict[tuple[int, str, str], tuple[list[str], list[bool | None]]] = {}
    for t in report["targets"]:
        if t.get("family", "synthetic") != family:
            continue
        # Time and memory of one operation share a row; growth and seconds get their own.
        own = t["measure"] not in ("time", "memory")
        key = (t["size"], t["codec"], f"{t['measure']} {t['op']}" if own else t["op"])
        what = DESCRIPTION.get(t["op"], t["op"])
        if t["measure"] == "growth":
            what += f" (growth, {t.get('note', '')})"
        elif t["measure"] == "seconds":
            what += " (CPU s)"
        if t.get("codec") not in ("brotli", "-"):
            what += f" [{t['codec']}]"
        slots = f"{t['size']:,}" if t.get("size") else "-"
        cells, met = rows.setdefault(key, ([what, slots, *[""] * 8], [None, None]))
        value = "" if t["value"] is None else f"{t['value']:.2f}"
        if t["value"] is None and t.get("note"):
            value = str(t["note"])[:40]
        word = {True: "met", False: "missed", None: "n/a"}[t["met"]]
        if t["measure"] == "memory":
            cells[6:9] = [value, f"{t['limit']:g}", word]
            cells[9] = t.get("output_sha256", "")
            met[1] = t["met"]
        else:
            cells[2:5] = [value, f"{t['limit']:g}", word]
            cells[5] = f"{t['bound']:.2f}" if t.get("bound") is not None else ""
            met[0] = t["met"]
    return list(rows.values())


def print_table(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=max(Console().width, 150))
    table = Table(
        title="brson benchmarks (x floor: CPU time over the floor of the same file, see --help)"
    )
    for col in RESULT_COLUMNS:
        table.add_column(col, justify="left" if col in ("codec", "operation") else "right")
    previous = None
    for row in report["results"]:
        key = (row["size"], row["codec"])
        if previous is not None and key != previous:
            table.add_section()
        previous = key
        cells = _cells(row)
        if "time_s" not in row:
            cells[3] = f"[yellow]{cells[3]}"
        table.add_row(*cells)
    console.print(table)
    colour = {True: "[green]", False: "[red]", None: "[yellow]"}
    for family in dict.fromkeys(t.get("family", "synthetic") for t in report["targets"]):
        targets = Table(
            title=f"{FAMILY_TITLE.get(family, family)}: time = CPU over the floor, "
            "memory = peak over the BSON size"
        )
        for col in FAMILY_COLUMNS:
            targets.add_column(col, justify="left" if col == "operation" else "right")
        for cells, met in family_rows(report, family):
            shown = list(cells)
            shown[4] = colour[met[0]] + shown[4] if shown[4] else ""
            shown[8] = colour[met[1]] + shown[8] if shown[8] else ""
            targets.add_row(*shown)
        console.print(targets)


def markdown(report: dict[str, Any]) -> str:
    """The results as Markdown tables (pasted into docs/performance.md)."""
    lines = [
        "| " + " | ".join(RESULT_COLUMNS) + " |",
        "|---:|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in report["results"]:
        cells = _cells(row)
        if cells[9]:
            cells[9] = f"`{cells[9]}`"
        lines.append("| " + " | ".join(cells) + " |")
    families = dict.fromkeys(t.get("family", "synthetic") for t in report["targets"])
    for family in families:
        lines += [
            "",
            f"{FAMILY_TITLE.get(family, family)}:",
            "",
            "| " + " | ".join(FAMILY_COLUMNS) + " |",
            "|---|---:|---:|---:|---|---:|---:|---:|---|---|",
        ]
        for cells, _ in family_rows(report, family):
            shown = [f"**{c}**" if c == "missed" else c for c in cells]
            if shown[9]:
                shown[9] = f"`{shown[9]}`"
            lines.append("| " + " | ".join(shown) + " |")
    return "\n".join(lines) + "\n"


def print_profiles(report: dict[str, Any]) -> None:
    """Each operation's top functions (``--profile``), with its peaks."""
    for row in report["results"]:
        if "profile" not in row:
            continue
        print(
            f"\n{_family(row)} {row['size']:,} {row['op']}: {row['time_s']:.2f} s CPU "
            f"(profiled), peak RSS {row.get('peak_mib')} MiB ({row.get('peak_ratio')}x), "
            f"Python allocations' peak {row.get('traced_peak_mib')} MiB"
        )
        for f in row["profile"]:
            print(
                f"  {f['own_s']:>8.3f} {f['cumulative_s']:>8.3f} {f['calls']:>10}  {f['function']}"
            )


def print_outputs(report: dict[str, Any]) -> None:
    """One line an output: what a before/after comparison diffs."""
    for row in report["results"]:
        sha = row.get("output_sha256") or row.get("error") or row.get("missing") or "-"
        size = row.get("output_bytes", "")
        family = _family(row)
        print(f"{family:<9} {row['size']:>7} {row['codec']:<6} {row['op']:<14} {sha} {size}")


def plot(report: dict[str, Any], out: Path, codec: str = "brotli") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [
        r
        for r in report["results"]
        if r["codec"] == codec and "ratio" in r and _family(r) == "synthetic"
    ]
    ops = [op for op in [*OPS, JS_PEER] if any(r["op"] == op for r in rows)]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5.5))
    cmap = plt.get_cmap("tab20")
    for i, op in enumerate(ops):
        pts = sorted((r["size"], r["ratio"], r.get("peak_ratio")) for r in rows if r["op"] == op)
        xs = [p[0] for p in pts]
        left.plot(xs, [p[1] for p in pts], marker="o", color=cmap(i % 20), label=op)
        mx = [p[0] for p in pts if p[2] is not None]
        right.plot(mx, [p[2] for p in pts if p[2] is not None], marker="o", color=cmap(i % 20))
    for ax in (left, right):
        ax.set_xscale("log")
        ax.set_xlabel("world size (slots)")
        ax.grid(True, which="both", alpha=0.3)
    left.set_yscale("log")
    left.set_ylabel("CPU time over the floor")
    left.set_title(f"time to the floor of the same file ({codec})")
    left.axhline(1.0, color="black", lw=0.8)
    right.set_ylabel("peak memory over the BSON's size")
    right.set_title("peak memory")
    left.legend(fontsize=7, ncol=2)
    fig.suptitle(
        f"brson on synthetic worlds - {report['machine']['cpu']}, "
        f"{report['machine']['cores']} cores, Python {report['machine']['python']}"
    )
    fig.tight_layout()
    fig.savefig(out, dpi=110)


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
