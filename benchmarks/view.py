"""``brson view`` on the 10k- and 100k-slot worlds, in a real browser (docs/view.md).

``python benchmarks/view.py [--sizes 10000,100000]``.  For each world (benchmarks/worlds.py,
LZ4 codec) it starts the real command (``python -m brson view WORLD --no-browser``) and drives
Debian's Chromium with Playwright, measuring:

- **ready**: from starting the command to the URL printed (the file read, the server up);
- **first paint**: from the page's navigation to the root and its children shown (the page's
  own ``performance.now()`` from start to the tree drawn, plus the page load before it);
- **deepest slot, cold**: ``go(key)`` of the deepest slot right after the first paint, while the
  worker is still indexing, to its row shown, selected and its inspector filled;
- **deepest slot, warm**: the same for another leaf as deep once the index is built;
- **search / links / referenced-by / findings ready**: from the first paint until a search
  answers from the index, until the inspector's reference links resolve, until referenced-by
  answers, and until validation's findings are shown;
- the server's peak memory (VmHWM).

The deepest slots are found beforehand (a walk in this process, not timed).  Results are
printed and written to benchmarks/results/benchmarks-view.json.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import worlds  # noqa: E402  (a sibling script)

from tests.view.conftest import CHROMIUM_ARGS, chromium_path  # noqa: E402

RESULTS = HERE / "results" / "benchmarks-view.json"


def deepest_two(path: Path) -> tuple[str, str, int]:
    """The deepest slot's key, another leaf as deep or nearly (for the warm run), the depth."""
    from brson.view.data import ViewData, walk_keys

    data = ViewData.open(path)
    keys = sorted((key.count("."), key) for key, _ in walk_keys(data.tree.root))
    deepest = keys[-1][1]
    other = next(k for d, k in reversed(keys) if not deepest.startswith(k) and k != deepest)
    return deepest, other, keys[-1][0]


def peak_rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def select_time(page: Any, key: str) -> float:
    t0 = time.perf_counter()
    page.evaluate("key => brsonView.go(key)", key)
    page.wait_for_selector(f"body[data-selected='{key}']", timeout=600_000)
    page.wait_for_selector(f"#tree .node[data-key='{key}'] > .row.selected", timeout=600_000)
    return time.perf_counter() - t0


def measure(size: int) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    worlds.ensure(size, ["lz4"])
    path = worlds.path_for(size, "lz4")
    deepest, other, depth = deepest_two(path)
    t0 = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "brson", "view", str(path), "--no-browser"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        ready = time.perf_counter() - t0
        url = line.split(" at ", 1)[1].split()[0]
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 860})
            t1 = time.perf_counter()
            page.goto(url)
            page.wait_for_selector("body[data-tree=ready]", timeout=600_000)
            first_paint = time.perf_counter() - t1
            in_page = page.evaluate("brsonView.firstPaint") / 1000
            page.wait_for_selector("body[data-selected='0']", timeout=600_000)
            cold = select_time(page, deepest)
            t2 = time.perf_counter()
            while not page.evaluate(
                "() => brsonView.api('search', {q: 'slot', mode: 'name'}).then(a => !a.pending)"
            ):
                pass
            search_ready = time.perf_counter() - t2 + cold
            links = "() => brsonView.api('findings').then(a => a.targets || a.ready)"
            while not page.evaluate(links):
                page.wait_for_timeout(100)
            links_ready = time.perf_counter() - t2 + cold
            while not page.evaluate("() => brsonView.api('findings').then(a => a.refs || a.ready)"):
                page.wait_for_timeout(100)
            refs_ready = time.perf_counter() - t2 + cold
            page.wait_for_selector("body[data-findings=ready]", timeout=600_000)
            findings_ready = time.perf_counter() - t2 + cold
            warm = select_time(page, other)
            t3 = time.perf_counter()
            page.evaluate("() => brsonView.api('search', {q: 'slot 4', mode: 'name'})")
            search = time.perf_counter() - t3
            browser.close()
        rss = peak_rss(process.pid)
    finally:
        process.send_signal(2)
        process.wait(timeout=60)
    return {
        "slots": size,
        "file": path.name,
        "file_mib": round(path.stat().st_size / 2**20, 1),
        "depth": depth,
        "ready_s": round(ready, 2),
        "first_paint_s": round(first_paint, 3),
        "first_paint_in_page_s": round(in_page, 3),
        "deepest_cold_s": round(cold, 3),
        "deepest_warm_s": round(warm, 3),
        "search_ready_s": round(search_ready, 1),
        "links_ready_s": round(links_ready, 1),
        "referenced_by_ready_s": round(refs_ready, 1),
        "findings_ready_s": round(findings_ready, 1),
        "search_s": round(search, 3),
        "server_peak_mib": round(rss / 2**20),
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    args = parser.parse_args(argv)
    if chromium_path() is None:
        print("benchmarks/view.py: chromium is not installed (apt-get install chromium)")
        return 2
    results = [measure(int(n)) for n in args.sizes.split(",")]
    for r in results:
        print(json.dumps(r))
    RESULTS.write_text(json.dumps({"results": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
