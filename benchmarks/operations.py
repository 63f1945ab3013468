"""The measured operations: what each one runs on a world (the floors, a user's own loops) or
which ``brson`` command it runs, and the table of them, in the order the results are shown.

The driver (``run.py``) picks operations from the table; the fresh child process that measures
one (:mod:`measurement`) runs it on a :class:`World`.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_SIZE = 4 << 30

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
            self._bson = decompress(self.data, self.codec)
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
            self._edited_bson = decompress(self.edited.read_bytes(), self.codec)
        return self._edited_bson


def decompress(data: bytes, codec: str) -> bytes:
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
    return len(decompress(w.data, w.codec))


def op_decode_gc_off(w: World) -> Any:
    return _decode(w.bson, collector=False)


def op_decode_gc_on(w: World) -> Any:
    return _decode(w.bson, collector=True)


def op_decompress_edited(w: World) -> Any:
    return len(decompress(w.edited.read_bytes(), w.codec))


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
