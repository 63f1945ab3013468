"""Real-shaped worlds: the real sample trees tiled into one world of a chosen size.

The synthetic worlds (:mod:`worlds`) reach across the tree far more often than anything the
engine writes (``benchmarks/locality.py``), so operations that follow references (extract's
closure, refs, validate, diff) do other work on them than on real content.  A real-shaped
world is made of the engine's own trees instead: the Resonite samples in ``../shared/samples``
(the coresys package's main tree, the loading stand-in, the avatar root identification object,
the AimConstraint protograph), copied again and again under one root until its BSON reaches
the chosen size.

How it is built, with brson's own editing machinery:

* the header (``Types``, ``TypeVersions``, ``FeatureFlags``, ``VersionNumber``) and the root
  slot are the coresys tree's, its children replaced by ten group slots of ten subgroups each
  (:func:`brson.model.edit.add_slot`), so a subgroup holds about 1% of the world and a group
  about 10%: the two subtrees ``extract`` takes;
* each sample's root slot is imported once (:func:`brson.ops.importing.import_slot`: its
  component types rewritten into the world's ``Types``, ``TypeVersions`` merged and checked);
* each copy is that imported slot's bytes with every ID it defines (``ID``, every ``*-ID``
  key, ``ParentReference``) given a fresh value and every ID-shaped value naming one of them
  rewritten to match (:func:`brson.model.numbering.renumber_map` and ``rewrite``), its own
  slot name (``coresys #12``), and its parent link to the subgroup that holds it;
* the whole world is renumbered in document order (:func:`brson.model.numbering.renumber`),
  as the engine does on export.

The same size always gives the same bytes (sha256 in ``benchmarks/worlds/real-N.json``).
``python benchmarks/realworld.py 100`` writes ``benchmarks/worlds/real-100.brson`` (about
100 MiB of BSON), prints its sha256 and how far its references reach beside the samples'.
The runner (``benchmarks/run.py --real 100``) calls :func:`ensure`.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

import brson
from brson.model.edit import add_slot, parent_links
from brson.model.numbering import FreshIds, highest_number, renumber, renumber_map, rewrite
from brson.model.tree import DataTree, Slot
from brson.ops.importing import import_slot
from brson.package import load_package

#: Bump when the built bytes change, so cached worlds are rebuilt.
VERSION = 1
HERE = Path(__file__).resolve().parent
WORLDS = HERE / "worlds"
SAMPLES = HERE.parent.parent / "shared" / "samples"
CODECS = {"brotli": ".brson", "lz4": ".lz4bson", "lzma": ".7zbson"}
#: The tiles, in the order each round of copies takes them; the first gives the header and
#: the root.  Every Resonite sample (the NeosVR one cannot share a file with them).
SOURCES = (
    "mar_coresys.resonitepackage",
    "orange3134_loading_standin.brson",
    "orange3134_AvatarRootIdentification.brson",
    "mar_AimConstraint.pg.brson",
)
#: Groups under the root, and subgroups in each: a subgroup is ~1% of the world.
GROUPS = 10
#: The size make bench runs (MiB of BSON).
DEFAULT_MIB = 100
MAX_SIZE = 4 << 30


def _load(name: str) -> DataTree:
    path = SAMPLES / name
    if path.suffix == ".resonitepackage":
        return load_package(path).tree
    return brson.load(path)


def path_for(mib: int, codec: str) -> Path:
    return WORLDS / f"real-{mib}{CODECS[codec]}"


def meta_path(mib: int) -> Path:
    return WORLDS / f"real-{mib}.json"


def build(mib: int) -> tuple[bytes, dict[str, Any]]:
    """The BSON of a real-shaped world of about ``mib`` MiB, and facts about it."""
    sources = [_load(name) for name in SOURCES]
    world = brson.loads(sources[0].to_bson())
    root = world.root
    root.set("Children", [])
    fresh = FreshIds.for_tree(world)
    groups = [add_slot(root, f"Group {g}", ids=fresh) for g in range(GROUPS)]
    subgroups = [[add_slot(g, f"Part {s}", ids=fresh) for s in range(GROUPS)] for g in groups]
    # One import per sample: the template every copy of it is rewritten from.
    holder = subgroups[0][0]
    templates: list[tuple[str, bytes]] = []
    for source in sources:
        imported = import_slot(world, source, source.root, holder, ids=fresh).slot
        templates.append((imported.name or "copy", imported.to_bson()))
    holder.set("Children", [])
    linked = parent_links(holder)
    target = mib << 20
    base = len(world.to_bson())
    # Copies round-robin over the samples until the world reaches the size.
    plan: list[int] = []
    size = base
    while size < target:
        index = len(plan) % len(templates)
        plan.append(index)
        size += len(templates[index][1])
    places = [(g, s) for g in range(GROUPS) for s in range(GROUPS)]
    children: dict[tuple[int, int], list[Slot]] = {p: [] for p in places}
    number = fresh.next
    copies = [0] * len(templates)
    for n, index in enumerate(plan):
        name, data = templates[index]
        g, s = places[n * len(places) // len(plan)]
        mapping = renumber_map(data, number)
        mapping.pop(holder.id, None)  # a parent link names the holder: it stays a link
        number = highest_number(mapping.values()) + 1
        copy_bytes = rewrite(data, mapping)
        copy = Slot(copy_bytes, 0, len(copy_bytes))
        copy.name = f"{name} #{copies[index]}"
        copies[index] += 1
        if linked:
            copy.set("ParentReference", subgroups[g][s].id)
        children[(g, s)].append(copy)
    for g, s in places:
        subgroups[g][s].set("Children", children[(g, s)])
    for g in range(GROUPS):
        groups[g].set("Children", subgroups[g])
    root.set("Children", groups)
    world = renumber(brson.loads(world.to_bson()))
    data = world.to_bson()
    slots = sum(1 for _ in world.walk())
    first, second = world.root.children[0], world.root.children[0].children[0]
    meta = {
        "family": "real",
        "version": VERSION,
        "mib": mib,
        "sources": {name: copies[i] for i, name in enumerate(SOURCES)},
        "slots": slots,
        "bson_bytes": len(data),
        "bson_sha256": hashlib.sha256(data).hexdigest(),
        "types": len(world.types),
        "extract_id": first.id,
        "extract_slots": sum(1 for _ in first.walk()),
        "extract_1_id": second.id,
        "extract_1_slots": sum(1 for _ in second.walk()),
    }
    return data, meta


def ensure(mib: int, codecs: list[str], log: Any = print) -> dict[str, Any]:
    """Build (or reuse) the real-shaped world of ``mib`` MiB in each codec; its metadata."""
    WORLDS.mkdir(exist_ok=True)
    where = meta_path(mib)
    meta: dict[str, Any] = json.loads(where.read_text()) if where.exists() else {}
    if meta.get("version") != VERSION:
        meta = {}
    files = dict(meta.get("files", {}))
    missing = [c for c in codecs if not path_for(mib, c).exists() or c not in files]
    if not missing:
        return meta
    t0 = time.perf_counter()
    data, fresh = build(mib)
    log(
        f"built the real-shaped {mib} MiB world: {len(data) / 2**20:.1f} MiB of BSON, "
        f"{fresh['slots']:,} slots in {time.perf_counter() - t0:.1f} s, "
        f"sha256 {fresh['bson_sha256']}"
    )
    if meta.get("bson_sha256") != fresh["bson_sha256"]:
        meta, files = {}, {}
    meta = {**fresh, "files": files}
    for codec in codecs:
        path = path_for(mib, codec)
        if path.exists() and codec in files:
            continue
        archive = brson.dumps(data, codec)
        path.write_bytes(archive)
        files[codec] = {"name": path.name, "bytes": len(archive)}
        log(f"  wrote {path.name}: {len(archive) / 2**20:.1f} MiB")
    where.write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def _main(argv: list[str]) -> int:
    import argparse

    import locality

    parser = argparse.ArgumentParser(
        description="Build (and cache in benchmarks/worlds/) real-shaped worlds of about N MiB "
        "of BSON, and print their sha256 and reference reach beside the samples'."
    )
    parser.add_argument("sizes", nargs="*", type=int, default=[DEFAULT_MIB], metavar="MIB")
    parser.add_argument("--size", type=int, action="append", metavar="MIB", help="(same)")
    parser.add_argument("--codecs", default="brotli", help="comma-separated")
    parser.add_argument("--no-reach", action="store_true", help="skip the reference reach")
    args = parser.parse_args(argv)
    sizes = args.size or args.sizes
    for mib in sizes:
        if mib <= 0:
            parser.error(f"a world needs a positive size, not {mib} MiB")
        meta = ensure(mib, args.codecs.split(","))
        print(
            f"real-{mib}: {meta['bson_bytes'] / 2**20:.1f} MiB of BSON, {meta['slots']:,} slots, "
            f"copies {meta['sources']}, sha256 {meta['bson_sha256']}"
        )
    if not args.no_reach:
        paths = [SAMPLES / name for name in SOURCES]
        paths += [path_for(mib, args.codecs.split(",")[0]) for mib in sizes]
        locality.print_reach(paths)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    sys.exit(_main(sys.argv[1:]))
