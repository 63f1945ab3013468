"""glTF export benchmark: a 100k-vertex skinned avatar package and the 10k-slot world.

``python benchmarks/gltf.py`` (``make bench-gltf``).  Each measurement runs in a fresh process
(peak memory = VmHWM after minus before, as in benchmarks/run.py; time = best of N).  The
**floor** is reading the same bytes as cheaply as the libraries allow: for the package, every
zip entry read, the main tree's Brotli payload decompressed and ``bson.decode``d with the
collector off, the MeshX body LZ4-decompressed; for the world, decompress + ``bson.decode``.
The export is ``load`` + ``export_gltf`` + the ``.glb`` bytes.  Results:
benchmarks/results/benchmarks-gltf.json.
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "fixtures" / "gltf"))

import worlds  # noqa: E402  (sibling scripts, not packages)
from measurement import max_rss  # noqa: E402

SKINNED = worlds.WORLDS / "skinned-100k.resonitepackage"
#: 251 x 400 = 100,400 vertices.
SIDES, RINGS = 250, 400


def ensure_skinned() -> Path:
    if not SKINNED.exists():
        import make_gltf_fixtures as fx

        from brson.package import new_record, write_package

        worlds.WORLDS.mkdir(exist_ok=True)
        tree, assets = fx.avatar(SIDES, RINGS)
        write_package(SKINNED, tree, new_record("Skinned 100k", fx.WHEN), assets)
    return SKINNED


def floor(path: Path) -> int:
    import brotli
    import bson

    from brson.codecs import lz4net

    gc.disable()
    try:
        if path.suffix == ".resonitepackage":
            with zipfile.ZipFile(path) as z:
                entries = {n: z.read(n) for n in z.namelist()}
            total = 0
            for data in entries.values():
                if data[:4] == b"FrDT":
                    total += len(bson.decode(brotli.decompress(data[9:])))
                elif data[:6] == b"\x05MeshX":
                    at = data.index(b"sRGB") + 5  # header of the writer's v7: body follows
                    total += len(lz4net.decompress(data[at:]))
            return total
        data = path.read_bytes()
        return len(bson.decode(brotli.decompress(data[9:])))
    finally:
        gc.enable()


def export(path: Path) -> int:
    import brson
    from brson.assets import AssetStore
    from brson.gltf import export_gltf
    from brson.package import load_package

    if path.suffix == ".resonitepackage":
        package = load_package(path)
        tree, store = package.tree, AssetStore(package)
    else:
        tree, store = brson.load(path), AssetStore()
    document, _report = export_gltf(tree, assets=store)
    return len(document.glb())


def child(op: str, path: str, reps: int) -> None:
    import brotli  # noqa: F401
    import bson  # noqa: F401
    import numpy  # noqa: F401

    import brson.gltf.export
    import brson.package  # noqa: F401

    baseline = max_rss()
    fn = floor if op == "floor" else export
    times = []
    peak = 0
    for i in range(reps):
        t0 = time.perf_counter()
        result = fn(Path(path))
        times.append(time.perf_counter() - t0)
        if i == 0:
            peak = max_rss() - baseline
        gc.collect()
    print(json.dumps({"time_s": min(times), "peak_rss": peak, "result": result}))


def measure(op: str, path: Path, reps: int) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__)), "--child", op, str(path), str(reps)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=True)
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--child", nargs=3, metavar=("OP", "PATH", "REPS"))
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1], int(args.child[2]))
        return 0
    world = worlds.path_for(10000, "brotli")
    worlds.ensure(10000, ["brotli"])
    rows = []
    for label, path in (
        ("skinned mesh, 100k vertices", ensure_skinned()),
        ("10k-slot world", world),
    ):
        low = measure("floor", path, args.reps)
        out = measure("export", path, args.reps)
        row = {
            "input": label,
            "file": path.name,
            "bytes": path.stat().st_size,
            "floor_s": low["time_s"],
            "export_s": out["time_s"],
            "time_ratio": out["time_s"] / low["time_s"],
            "floor_peak_rss": low["peak_rss"],
            "export_peak_rss": out["peak_rss"],
            "memory_ratio": out["peak_rss"] / max(low["peak_rss"], 1),
            "glb_bytes": out["result"],
        }
        rows.append(row)
        print(
            f"{label:30} floor {row['floor_s']:.3f} s  export {row['export_s']:.3f} s "
            f"(x{row['time_ratio']:.1f})  memory {row['floor_peak_rss'] / 2**20:.0f} -> "
            f"{row['export_peak_rss'] / 2**20:.0f} MiB (x{row['memory_ratio']:.1f})  "
            f"glb {row['glb_bytes'] / 2**20:.1f} MiB"
        )
    (HERE / "results" / "benchmarks-gltf.json").write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
