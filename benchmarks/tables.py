"""What a run prints and draws: the results table and one targets table per family (rich on
a terminal, Markdown for docs/performance.md), the profiles, each output's digest, the plot.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from operations import DESCRIPTION, JS_PEER, OPS
from targets import family_of

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
            f"\n{family_of(row)} {row['size']:,} {row['op']}: {row['time_s']:.2f} s CPU "
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
        family = family_of(row)
        print(f"{family:<9} {row['size']:>7} {row['codec']:<6} {row['op']:<14} {sha} {size}")


def plot(report: dict[str, Any], out: Path, codec: str = "brotli") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [
        r
        for r in report["results"]
        if r["codec"] == codec and "ratio" in r and family_of(r) == "synthetic"
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
