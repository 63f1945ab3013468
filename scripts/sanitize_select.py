"""Choose `make sanitize`'s tests (scripts/sanitize-tests.txt) by the C lines each one reaches.

`make sanitize-select`: the C accelerators (brson/_speedups/*.c) are built with gcov
instrumentation (--coverage -O0) and with ASan + UBSan, as scripts/sanitize.sh runs them, into
a copy of the tree made the way sanitize.sh makes it; the candidate tests (the differential
tests, the decoder hand-off, the ID scan's guards and the fuzz slice's C targets) run there at
the sanitized depth (BRSON_SANITIZE=1), in one process. This file is also the pytest plugin of
that run: around every test it resets each module's counters, then dumps them, and keeps the
test's .gcda files and its CPU time. gcov then gives each test's executed lines (a header's
lines counted once for each module that includes it).

The cost is each test's CPU time under the sanitizers (its process's and its children's, user +
sys: wall time on a shared machine is mostly the other jobs'): Python slows down under them as
much as C does (PYTHONMALLOC=malloc, ASan's allocator), so a plain build's times would rank the
Python-heavy tests too cheap. (gcov's own counting adds little to it.)

The selection reaches every line the candidates reach, at the least cost found: a greedy set
cover weighted by cost (at each step the test with the most lines not yet reached per second),
then, dearest first, every pick whose lines the others reach is dropped. A fault shows on the
first input that reaches its line, so the rest is the normal suite's to run. A function with a
case the candidates leave out (the `sql` target) is never listed whole.

Run it after adding or changing C, adding a real sample, or renaming a listed test
(tests/test_sanitize_selection.py fails on a listed test that no longer exists). It takes
several minutes. --keep DIR keeps the run; --reuse DIR... selects again from kept runs (of all
the candidates, or of parts of them run side by side: --files).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import resource
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIST = ROOT / "scripts" / "sanitize-tests.txt"
# What scripts/sanitize.sh copies, and what it leaves out (what other steps write meanwhile).
TREE = ["brson", "tests", "fixtures", "fuzz", "scripts", "pyproject.toml"]
EXCLUDE = ["node_modules", "__pycache__", "*.so", "*.egg-info", "fuzz/findings", "fuzz/corpus-*"]
# The candidates. Not the hypothesis-generated documents or keys, nor the fuzz slice's
# hypothesis-mutated inputs (generated in Python: what they reach in C the real documents'
# mutated copies reach); never the slice's `sql` target nor its mutated queries (DuckDB's C++
# exceptions abort under a preloaded libasan), nor its targets whose readers call no C.
NO_C = "godot3 or godot4 or meshx or folders"
CANDIDATES = [
    "-k",
    f"not generated and not sql and not (fuzz_slice and ({NO_C})) and not mutated_seeds"
    " and not mutated_queries and not key_rule",
    "tests/test_speedups.py",
    "tests/document/test_rawc.py",
    "tests/document/test_component_type_scan.py",
    "tests/model/test_idscanc.py",
    "tests/model/test_bulk_lookups.py",
    "tests/ops/test_fieldsc.py",
    "tests/ops/test_slotpass.py",
    "tests/ops/test_fluxnodes.py",
    "tests/graph/test_spansc.py",
    "tests/graph/test_spansc_runs.py",
    "tests/godot/test_tscnc.py",
    "tests/godot/test_tscnnode.py",
    "tests/document/test_jsonformc.py",
    "tests/cli/test_refs_records.py",
    "tests/document/test_formreadc.py",
    "tests/document/test_formstreamc.py",
    "tests/regressions/test_issue27_decoder_handoff.py",
    "tests/regressions/test_issue27_idscan.py",
    "tests/hardening/test_fuzz_slice.py",
]
# Exported from each instrumented module: libgcov is linked into every shared object on its
# own, with hidden symbols, so each module dumps and resets only its own counters.
HOOK = """\
extern void __gcov_dump(void);
extern void __gcov_reset(void);
void brson_gcov_dump(void) { __gcov_dump(); }
void brson_gcov_reset(void) { __gcov_reset(); }
"""
# scripts/sanitize.sh's sanitizers and their options (a report halts the run, into a file:
# pytest holds fd 2)
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]
SANITIZER_OPTIONS = "halt_on_error=1:exitcode=86:log_path={reports}/{name}"
Line = tuple[str, int]


def copy_tree(dest: Path) -> Path:
    """The source tree copied to dest/brson (../shared linked beside it), as sanitize.sh does."""
    copy = dest / "brson"
    copy.mkdir()
    excludes = [f"--exclude={pattern}" for pattern in EXCLUDE]
    with subprocess.Popen(
        ["tar", "-cf", "-", *excludes, *TREE], cwd=ROOT, stdout=subprocess.PIPE
    ) as packer:
        subprocess.run(["tar", "-xf", "-", "-C", str(copy)], stdin=packer.stdout, check=True)
    if packer.returncode:
        sys.exit(f"sanitize-select: tar of the tree failed ({packer.returncode})")
    shared = ROOT.parent / "shared"
    if shared.is_dir():
        (dest / "shared").symlink_to(shared.resolve())
    return copy


def build(copy: Path, objects: Path) -> None:
    """Each module built with --coverage (-O0: every line its own), the sanitizers and the hook."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    include = sysconfig.get_paths()["include"]
    cc = os.environ.get("CC", "gcc")
    hook = objects / "hook.c"
    hook.write_text(HOOK)
    speedups = copy / "brson" / "_speedups"
    names = sorted(source.stem for source in speedups.glob("_*.c"))
    for name in names:
        print(f"sanitize-select: {cc} --coverage -fsanitize brson/_speedups/{name}.c", flush=True)
        obj, hook_obj = objects / f"{name}.o", objects / f"hook{name}.o"
        module = speedups / f"{name}{suffix}"
        flags = ["-c", "-fPIC", "-O0", "-g", *SANITIZE]
        compile_module = [cc, *flags, "--coverage", f"-I{include}", str(speedups / f"{name}.c")]
        subprocess.run([*compile_module, "-o", str(obj)], cwd=objects, check=True)
        subprocess.run([cc, *flags, str(hook), "-o", str(hook_obj)], cwd=objects, check=True)
        link = [cc, "-shared", "--coverage", *SANITIZE, str(obj), str(hook_obj), "-o", str(module)]
        subprocess.run(link, cwd=objects, check=True)


# --- the pytest plugin (loaded in the run by -p sanitize_select) ---------------------------

_modules: list[ctypes.CDLL] = []
_count = [0]


def _instrumented() -> list[ctypes.CDLL]:
    if not _modules:
        import brson._speedups as speedups  # the copy's (on the run's path)

        for source in sorted(Path(speedups.__file__).parent.glob("_*.c")):
            module = speedups.load(source.stem)
            if module is None or module.__file__ is None:
                raise RuntimeError(f"sanitize-select: {source.stem} did not load")
            _modules.append(ctypes.CDLL(module.__file__))
    return _modules


def _cpu() -> float:
    """This process's CPU time and its finished children's (user + sys)."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Each test's counters and CPU time (setup, call and teardown), in a directory of its own."""
    out, objects = Path(os.environ["SANITIZE_SELECT_OUT"]), Path(os.environ["SANITIZE_SELECT_OBJ"])
    for module in _instrumented():
        module.brson_gcov_reset()
    start = _cpu()
    yield
    cost = _cpu() - start
    for module in _instrumented():
        module.brson_gcov_dump()
    _count[0] += 1
    here = out / f"{_count[0]:05d}"
    here.mkdir()
    (here / "test.json").write_text(json.dumps({"nodeid": item.nodeid, "cost": cost}))
    for counters in objects.glob("*.gcda"):
        shutil.move(counters, here / counters.name)


def pytest_deselected(items: list[pytest.Item]) -> None:
    """The candidates' functions with a case left out (never listed whole)."""
    with (Path(os.environ["SANITIZE_SELECT_OUT"]) / "deselected.txt").open("a") as out:
        out.writelines(f"{item.nodeid}\n" for item in items)


# --- per-test lines and the selection ----------------------------------------------------


def lines_of(here: Path, sources: Path, objects: Path) -> set[Line]:
    """The C lines one test executed (gcov's JSON of its .gcda files)."""
    names = [counters.stem for counters in here.glob("*.gcda")]
    for name in names:
        notes = here / f"{name}.gcno"
        if not notes.is_symlink():
            notes.symlink_to(objects / f"{name}.gcno")
    if not names:
        return set()
    result = subprocess.run(
        ["gcov", "-j", "-t", "-o", str(here)] + [str(sources / f"{name}.c") for name in names],
        cwd=here,
        capture_output=True,
        text=True,
        check=True,
    )
    lines: set[Line] = set()
    for document in result.stdout.splitlines():
        if not document.startswith("{"):
            continue
        report = json.loads(document)
        module = Path(report["data_file"]).stem
        for source in report["files"]:
            name = Path(source["file"]).name
            if not name.startswith("_"):
                continue
            if name.endswith(".h"):
                name = f"{module}:{name}"
            lines.update((name, line["line_number"]) for line in source["lines"] if line["count"])
    return lines


def function(nodeid: str) -> str:
    return nodeid.split("[", 1)[0]


def select(lines: dict[str, set[Line]], cost: dict[str, float]) -> set[str]:
    """The cheapest tests found that reach every line: a greedy set cover weighted by each
    test's time (most new lines a second first), then, dearest first, the picks whose lines
    the others reach dropped."""
    target = set().union(*lines.values())
    chosen: set[str] = set()
    covered: set[Line] = set()
    while covered != target:
        best = max(
            (nodeid for nodeid in lines if nodeid not in chosen),
            key=lambda nodeid: len(lines[nodeid] - covered) / (cost[nodeid] + 0.001),
        )
        chosen.add(best)
        covered |= lines[best]
    for nodeid in sorted(chosen, key=lambda nodeid: -cost[nodeid]):
        rest = set().union(*(lines[other] for other in chosen if other != nodeid))
        if rest >= target:
            chosen.discard(nodeid)
    return chosen


def listing(chosen: set[str], candidates: set[str], deselected: set[str]) -> list[str]:
    """Whole functions (every case chosen, none deselected) first, then single cases."""
    cut = {function(nodeid) for nodeid in deselected}
    whole = sorted(
        {
            function(nodeid)
            for nodeid in chosen
            if function(nodeid) not in cut
            and all(other in chosen for other in candidates if function(other) == function(nodeid))
        }
    )
    return whole + sorted(nodeid for nodeid in chosen if function(nodeid) not in whole)


def tests_of(listed: list[str], candidates: dict[str, set[Line]]) -> list[str]:
    """The candidates a list's entries run."""
    entries = set(listed)
    return [nodeid for nodeid in candidates if {nodeid, function(nodeid)} & entries]


def summary(listed: list[str], lines: dict[str, set[Line]], cost: dict[str, float]) -> str:
    tests = tests_of(listed, lines)
    spent = sum(cost[nodeid] for nodeid in tests)
    share = spent / sum(cost.values())
    reach = len(set().union(*(lines[nodeid] for nodeid in tests)))
    return f"{len(listed)} entries, {len(tests)} tests, {spent:.1f} s ({share:.0%}), {reach} lines"


def run(work: Path, files: list[str]) -> bool:
    """The candidates under gcov and the sanitizers in a copy of the tree at work; passed?"""
    copy = copy_tree(work)
    objects, out, reports = work / "obj", work / "tests", work / "reports"
    for folder in (objects, out, reports):
        folder.mkdir()
    build(copy, objects)
    cc = os.environ.get("CC", "gcc")
    libasan = subprocess.run(
        [cc, "-print-file-name=libasan.so"], capture_output=True, text=True, check=True
    ).stdout.strip()
    env = dict(os.environ, BRSON_SANITIZE="1", CI="true", PYTHONMALLOC="malloc")
    env |= {"SANITIZE_SELECT_OUT": str(out), "SANITIZE_SELECT_OBJ": str(objects)}
    env["PYTHONPATH"] = os.pathsep.join([str(copy), str(copy / "scripts")])
    env["LD_PRELOAD"] = libasan
    options = SANITIZER_OPTIONS.replace("{reports}", str(reports))
    env["ASAN_OPTIONS"] = "detect_leaks=0:" + options.replace("{name}", "asan")
    env["UBSAN_OPTIONS"] = "print_stacktrace=1:" + options.replace("{name}", "ubsan")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    command += ["-p", "sanitize_select", "-n", "0", *CANDIDATES[:2], *files]
    print("sanitize-select: the candidates under gcov, ASan and UBSan (minutes)", flush=True)
    passed = subprocess.run(command, cwd=copy, env=env, check=False).returncode == 0
    for report in sorted(reports.iterdir()):
        print("".join(report.read_text().splitlines(keepends=True)[:40]), file=sys.stderr)
    return passed


def measured(work: Path) -> tuple[dict[str, set[Line]], dict[str, float], set[str]]:
    """Each candidate's C lines and cost, and the cases the candidates' -k left out."""
    objects, out = work / "obj", work / "tests"
    sources = work / "brson" / "brson" / "_speedups"
    runs = sorted(path for path in out.iterdir() if path.is_dir())
    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        seen = list(pool.map(lambda here: lines_of(here, sources, objects), runs))
    lines: dict[str, set[Line]] = {}
    cost: dict[str, float] = {}
    for here, executed in zip(runs, seen, strict=True):
        test = json.loads((here / "test.json").read_text())
        lines[test["nodeid"]] = executed
        cost[test["nodeid"]] = test["cost"]
    deselected = out / "deselected.txt"
    return lines, cost, set(deselected.read_text().splitlines()) if deselected.exists() else set()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--keep", type=Path, help="keep the run in this new folder")
    where.add_argument(
        "--reuse", type=Path, nargs="+", help="select again from runs kept with --keep"
    )
    parser.add_argument(
        "--files",
        nargs="+",
        default=CANDIDATES[2:],
        help="run these candidate files only (with --keep: runs of parts, side by side, then"
        " --reuse of them all)",
    )
    args = parser.parse_args()
    if args.reuse:
        work = args.reuse[0]
    elif args.keep:
        work = args.keep
        work.mkdir(parents=True)
    else:
        work = Path(tempfile.mkdtemp(prefix="sanitize-select-"))
    try:
        if not args.reuse and not run(work, args.files):
            print("sanitize-select: a candidate failed; nothing written", file=sys.stderr)
            return 1
        lines: dict[str, set[Line]] = {}
        cost: dict[str, float] = {}
        deselected: set[str] = set()
        for kept in args.reuse or [work]:
            more = measured(kept)
            lines |= more[0]
            cost |= more[1]
            deselected |= more[2]
    finally:
        if not (args.keep or args.reuse):
            shutil.rmtree(work)
    before = [entry for entry in LIST.read_text().splitlines() if entry] if LIST.exists() else []
    chosen = select(lines, cost)
    listed = listing(chosen, set(lines), deselected)
    target = set().union(*lines.values())
    print(
        f"sanitize-select: the {len(lines)} candidates reach {len(target)} lines of C"
        f" in {sum(cost.values()):.1f} s"
    )
    print(f"sanitize-select: before: {summary(before, lines, cost)}")
    print(f"sanitize-select: after: {summary(listed, lines, cost)}")
    LIST.write_text("".join(f"{entry}\n" for entry in listed))
    print(f"sanitize-select: wrote {LIST.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
