"""Extract's time and memory per phase, in a fresh process: what the issue 14 check of "peak
memory of extract on the 100k world under 3x its BSON" was measured with.

``python benchmarks/extract_phases.py 100000 [extract_id|extract_1_id]`` loads the cached
world (``benchmarks/worlds/``, made by ``make bench``), extracts the subtree the world's
metadata names with a progress callback that prints CPU time, resident memory and its peak
(VmRSS, VmHWM over the process's size before loading), then writes the result.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import brson
from brson.ops.extract import extract

WORLDS = Path(__file__).resolve().parent / "worlds"


def _memory() -> dict[str, float]:
    """VmRSS and VmHWM of this process, MiB."""
    out: dict[str, float] = {}
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(("VmHWM", "VmRSS")):
                out[line[:5]] = int(line.split()[1]) / 1024
    return out


def main() -> None:
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    which = sys.argv[2] if len(sys.argv) > 2 else "extract_id"
    meta = json.loads((WORLDS / f"world-{size}.json").read_text())
    data = (WORLDS / f"world-{size}.brson").read_bytes()
    base = _memory()["VmHWM"]
    started = time.process_time()

    def phase(name: str) -> None:
        now = _memory()
        print(
            f"{time.process_time() - started:7.2f} s  rss {now['VmRSS'] - base:7.0f} MiB  "
            f"peak {now['VmHWM'] - base:7.0f} MiB  -> {name}",
            flush=True,
        )

    tree = brson.loads(data, max_size=4 << 30)
    phase("loaded")
    result = extract(tree, meta[which], progress=phase)
    phase("extracted")
    out = brson.dumps(result.tree, "brotli")
    phase("written")
    bson_mib = meta["bson_bytes"] / 2**20
    peak = _memory()["VmHWM"] - base
    print(f"BSON {bson_mib:.0f} MiB; peak {peak / bson_mib:.2f}x the BSON; {len(out)} bytes out")


if __name__ == "__main__":
    main()
