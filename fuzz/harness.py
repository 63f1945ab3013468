"""Run one fuzz target under atheris (libFuzzer), or under a plain mutation driver without it.

``python fuzz/fuzz_loads.py -runs=100000`` fuzzes with coverage guidance; any libFuzzer flag
can be given.  Defaults added unless overridden: ``-timeout=10`` (seconds per input: a hang is
a finding), ``-rss_limit_mb=1536`` (a memory blow-up is a finding), crash files written to
``fuzz/findings/``, and the corpus in ``fuzz/corpus-<target>/`` (seeded from ``fixtures/``,
``fixtures/regressions/`` and the real samples on first use).

``python fuzz/run.py loads validate:1000 ...`` runs several targets from one process (each
forked after brson is instrumented once: what ``make fuzz`` and ``make fuzz-short`` run).
``--replay FILE...`` runs the target once on each file without atheris (how a finding is
reproduced, and how the test suite replays ``fixtures/regressions/``).  When atheris cannot be
imported, the same command falls back to :func:`mutation_driver`: seeded random mutations with
the same per-input time bound, reporting the same figures.
"""

from __future__ import annotations

import ast
import contextlib
import ctypes
import gc
import hashlib
import importlib
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

TIMEOUT_S = 10


def _instrument_on_import(atheris: object) -> None:
    """Instrument each brson module for coverage as it is first imported, for the whole run.

    A target imports what it reaches lazily (at its first call, or on the first input that
    takes a path), so the hook stays installed: each target pays only for the modules it
    reaches (instrumenting all of brson costs about 7 s of CPU a process, more than a short
    slice's runs of most targets) and none is left uninstrumented.
    """
    hook = atheris.instrument_imports(include=["brson"])  # type: ignore[attr-defined]
    hook.__enter__()


def _corpus(seeds: list[bytes], name: str) -> Path:
    folder = HERE / f"corpus-{name}"
    if not folder.is_dir() or not any(folder.iterdir()):
        folder.mkdir(exist_ok=True)
        for seed in seeds:
            (folder / hashlib.sha1(seed).hexdigest()).write_bytes(seed)
    return folder


class _Timeout(Exception):
    pass


def _alarm(_signum: int, _frame: FrameType | None) -> None:
    raise _Timeout


def mutate(rng: random.Random, data: bytes, pool: list[bytes]) -> bytes:
    """A few byte-level edits, half of them near the start where headers and lengths live."""
    out = bytearray(data)
    plain = _plain_bson(data)
    lo = 5 if plain else 0  # plain BSON: keep the name byte and length, edit the document
    for _ in range(rng.randint(1, 6)):
        limit = len(out) + 1
        if limit <= lo:
            break
        pos = (
            rng.randrange(lo, min(limit, lo + 64))
            if rng.random() < 0.5
            else rng.randrange(lo, limit)
        )
        # Plain BSON: mostly in-place edits, which keep every enclosing length right.
        op = rng.choice((0, 4, 5)) if plain and rng.random() < 0.8 else rng.randrange(7)
        if op == 0 and pos < len(out):
            out[pos] ^= 1 << rng.randrange(8)
        elif op == 1:
            del out[pos:]
        elif op == 2:
            out[pos:pos] = rng.randbytes(rng.randint(1, 8))
        elif op == 3:
            del out[pos : pos + rng.randint(1, 16)]
        elif op == 4 and pos + 4 <= len(out):  # an interesting 32-bit value (lengths, counts)
            value = rng.choice(
                [0, 1, 4, 5, 0x7F, 0xFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, rng.randrange(1 << 32)]
            )
            out[pos : pos + 4] = value.to_bytes(4, "little")
        elif op == 5 and pos < len(out):
            out[pos] = rng.choice([0, 1, 2, 3, 4, 5, 0x10, 0x12, 0x7F, 0x80, 0xFF])
        elif op == 6 and pool:  # splice in a piece of another input
            other = rng.choice(pool)
            a = rng.randrange(len(other) + 1)
            out[pos:pos] = other[a : a + rng.randint(1, 256)]
    if plain and rng.random() < 0.8 and len(out) > 5:
        # Keep the outer BSON length right, so edits get past framing into the model.
        out[1:5] = (len(out) - 1).to_bytes(4, "little")
    return bytes(out)


def _plain_bson(data: bytes) -> bool:
    """A loads/validate input holding plain BSON (name byte, then a self-consistent length)."""
    return len(data) > 5 and int.from_bytes(data[1:5], "little") == len(data) - 1


def mutation_driver(name: str, runs: int, seed: int = 0) -> int:
    """Random mutation of the seeds with a per-input time bound; returns the number of
    findings (inputs raising anything but BrsonError, or running over the bound)."""
    from fuzz.targets import TARGETS

    target = TARGETS[name]
    pool = target.seeds()
    rng = random.Random(seed)
    findings_dir = HERE / "findings"
    findings = 0
    slowest = 0.0
    previous = signal.signal(signal.SIGALRM, _alarm)
    started = time.perf_counter()
    try:
        for i in range(runs):
            data = mutate(rng, rng.choice(pool), pool) if pool else rng.randbytes(64)
            t0 = time.perf_counter()
            signal.setitimer(signal.ITIMER_REAL, TIMEOUT_S)
            try:
                target.run(data)
            except _Timeout:
                findings += 1
                _save(findings_dir, name, "timeout", data, f"over {TIMEOUT_S} s")
            except Exception:
                findings += 1
                _save(findings_dir, name, "crash", data, traceback.format_exc())
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            slowest = max(slowest, time.perf_counter() - t0)
            if (i + 1) % 10_000 == 0:
                rate = (i + 1) / (time.perf_counter() - started)
                print(f"#{i + 1} {name}: {rate:.0f} exec/s, findings {findings}", flush=True)
    finally:
        signal.signal(signal.SIGALRM, previous)
    elapsed = time.perf_counter() - started
    print(
        f"Done {runs} runs in {elapsed:.0f} second(s): target {name}, findings {findings}, "
        f"slowest input {slowest:.3f} s",
        flush=True,
    )
    return findings


def _save(folder: Path, name: str, kind: str, data: bytes, why: str) -> None:
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}-{kind}-{hashlib.sha1(data).hexdigest()}"
    path.write_bytes(data)
    print(f"FINDING {path}:\n{why}", file=sys.stderr, flush=True)


def replay(name: str, files: list[str]) -> int:
    from fuzz.targets import TARGETS

    target = TARGETS[name]
    failures = 0
    for file in files:
        try:
            target.run(Path(file).read_bytes())
            print(f"ok   {file}")
        except Exception:
            failures += 1
            print(f"FAIL {file}\n{traceback.format_exc()}")
    return failures


def _libfuzzer_args(name: str, args: list[str], seeds: list[bytes]) -> list[str]:
    """libFuzzer's command line for target *name*: the flags of *args* with the harness's
    defaults for those not given, then the corpus folders (its own, seeded, when none)."""
    findings = HERE / "findings"
    findings.mkdir(exist_ok=True)
    flags = [a for a in args if a.startswith("-")]
    dirs = [a for a in args if not a.startswith("-")]
    defaults = {
        "-timeout": str(TIMEOUT_S),
        "-rss_limit_mb": "1536",
        "-artifact_prefix": f"{findings}{os.sep}{name}-",
        "-print_final_stats": "1",
    }
    if name in ("loads", "validate", "package"):
        defaults["-dict"] = str(HERE / "bson.dict")
    for flag, value in defaults.items():
        if not any(a.startswith(flag + "=") for a in flags):
            flags.append(f"{flag}={value}")
    return [*flags, *(dirs or [str(_corpus(seeds, name))])]


def _fuzz(atheris: Any, name: str, args: list[str], seeds: list[bytes]) -> None:
    """Run target *name* under libFuzzer; never returns (libFuzzer exits the process)."""
    from fuzz.targets import TARGETS

    target = TARGETS[name]
    argv = [sys.argv[0], *_libfuzzer_args(name, args, seeds)]
    # One seed first, before the per-input time bound: the imports it triggers (and their
    # instrumentation, seconds) are the process's, not the first input's. Seeds pass.
    if seeds:
        target.run(seeds[0])
    atheris.Setup(argv, target.run)
    atheris.Fuzz()


def _atheris(args: list[str]) -> Any:
    """atheris, or None for the plain mutation driver (not installed, or ``--driver``)."""
    try:
        import atheris
    except ImportError:
        print("atheris not available: plain mutation driver", flush=True)
        return None
    if "--driver" in args:
        print("plain mutation driver", flush=True)
        return None
    return atheris


def _flag(args: list[str], flag: str, default: int) -> int:
    return next((int(a.split("=", 1)[1]) for a in args if a.startswith(flag + "=")), default)


def main(name: str, argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["--replay"]:
        return 1 if replay(name, args[1:]) else 0
    atheris = _atheris(args)
    if atheris is None:
        findings = mutation_driver(name, _flag(args, "-runs", 10_000), _flag(args, "-seed", 0))
        return 1 if findings else 0

    _instrument_on_import(atheris)
    # In a child, as run_many runs each target: libFuzzer ends the process it fuzzes in
    # without Python's exit handlers, so its temporary files are this process's to remove.
    with _scratch():
        return _fork_target(atheris, name, args, None)


#: The lines of a target's log that ``run_many`` prints: libFuzzer's totals and any finding.
SUMMARY = re.compile(
    r"^(Done|stat::(number_of|average|slowest|peak)|fuzz target|atheris|FINDING)|Uncaught|Traceback"
)


def run_many(specs: list[str], args: list[str]) -> int:
    """Each target of *specs* (``name``, or ``name:runs`` with a run count of its own) under
    libFuzzer, one after another, each in a child forked from this process, its output in
    ``fuzz/findings/<name>.log``; the exit code of the first that fails, else 0.

    This process instruments and imports the brson modules the targets reach once, before
    the first fork: a process a target paid that again each time (most of a short slice's
    CPU). A child is a libFuzzer run of its own, as ``fuzz_<name>.py`` starts it. Each child's
    temporary files (the sql target's index) go to one folder, removed at the end: libFuzzer
    ends a child without Python's exit handlers.
    """
    atheris = _atheris(args)
    if atheris is not None:  # first: fuzz.targets imports brson, which is to be instrumented
        _instrument_on_import(atheris)
    from fuzz.targets import TARGETS

    runs = [(spec.split(":", 1)[0], spec.split(":", 1)[1:]) for spec in specs]
    unknown = [name for name, _ in runs if name not in TARGETS]
    if unknown:
        print(f"unknown fuzz targets: {unknown}; known: {sorted(TARGETS)}", file=sys.stderr)
        return 2
    if atheris is None:
        failed = [
            name
            for name, count in runs
            if mutation_driver(
                name,
                int(count[0]) if count else _flag(args, "-runs", 10_000),
                _flag(args, "-seed", 0),
            )
        ]
        return 1 if failed else 0
    _import_brson({TARGETS[name].run.__module__ for name, _ in runs})
    with _scratch():
        for name, count in runs:
            target_args = [a for a in args if not (count and a.startswith("-runs="))]
            target_args += [f"-runs={count[0]}"] if count else []
            rc = _fork_target(atheris, name, target_args, HERE / "findings" / f"{name}.log")
            if rc:
                return rc
    return 0


@contextlib.contextmanager
def _scratch() -> Iterator[None]:
    """The targets' temporary files (the sql target's index) in one folder of this process,
    removed at the end: libFuzzer ends the child that made them without Python's exit
    handlers."""
    scratch = tempfile.mkdtemp(prefix="brson-fuzz-")
    tempfile.tempdir = scratch
    try:
        yield
    finally:
        tempfile.tempdir = None
        shutil.rmtree(scratch, ignore_errors=True)


def _import_brson(roots: set[str]) -> None:
    """The brson modules the targets can reach (:func:`reachable_modules` of the modules
    *roots* that define them), imported (and so instrumented) once, for the children to share.

    Imported only: no target's seeds or inputs run here, so each child starts with the
    state of a new process (the caches of what runs empty, as ``fuzz_<name>.py`` has them).
    The modules no target imports (the CLI's commands, the viewer, the exporters) are left
    out: their instrumenting was a third of this. One a target does import that is not
    found is still instrumented, in the child that imports it.

    The instrumenter makes millions of objects, some in cycles: the garbage collector's own
    passes over the growing heap were a fifth of the CPU here, so it runs once a module,
    over that module's objects only. What is left is frozen before the forks, so that no
    child's collections walk (and so copy) the parent's pages.
    """
    gc.disable()
    try:
        for name in reachable_modules(roots):
            importlib.import_module(name)
            gc.collect(0)
    finally:
        gc.enable()
    gc.freeze()


def reachable_modules(roots: set[str]) -> list[str]:
    """The brson modules that the fuzz modules *roots* can import, read from the source (an
    import here would come before instrumentation): those a root names (in an import at the
    top or in a function, or as a string, as ``importlib`` takes one), what those name in
    turn, and so on through brson. Another fuzz module a root imports is not followed: the
    trees target's (``fuzz/trees.py``, every command) has a process of its own."""
    files = {_module_name(path): path for path in (HERE.parent / "brson").rglob("*.py")}
    todo = [m for root in roots for m in _named_modules(HERE.parent, root) if m in files]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += [m for m in _named_modules(files[name], name) if m in files]
    return sorted(seen)


def _module_name(path: Path) -> str:
    parts = path.relative_to(HERE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _named_modules(path: Path, module: str) -> set[str]:
    """Every module that the source of *module* (at *path*, or under the folder *path*)
    imports anywhere or names in a string, and the packages above each."""
    if path.is_dir():
        path = path.joinpath(*module.split(".")).with_suffix(".py")
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                above = package.rsplit(".", node.level - 1)[0]
                base = f"{above}.{base}" if base else above
            names |= {base, *(f"{base}.{alias.name}" for alias in node.names)}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)
    return {n.rsplit(".", i)[0] for n in names for i in range(n.count(".") + 1)}


def _child(atheris: Any, name: str, args: list[str], log: Path | None) -> NoReturn:
    """A forked child's whole life: target *name* under libFuzzer, its output to *log* (or
    where the parent's goes).

    It never returns into the caller's frames (their ``finally`` blocks are the parent's).
    A finding makes atheris raise SystemExit: the process then ends through C's ``exit``,
    as an uncaught SystemExit ends a process of its own, so that libFuzzer's exit handler
    writes the input to ``fuzz/findings/`` and sets its exit code.
    """
    code = 70
    try:
        if log is not None:
            fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
        from fuzz.targets import TARGETS

        # (here, not before the fork: the sql target's check imports DuckDB)
        if TARGETS[name].available():
            _fuzz(atheris, name, args, TARGETS[name].seeds())  # libFuzzer exits
        print(f"fuzz target {name}: its module does not exist yet; nothing to fuzz")
        code = 0
    except SystemExit as exc:
        sys.stdout.flush()
        sys.stderr.flush()
        ctypes.CDLL(None).exit(exc.code if isinstance(exc.code, int) else 1)
    except BaseException:
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _fork_target(atheris: Any, name: str, args: list[str], log: Path | None) -> int:
    """Target *name* in a forked child, its output to *log* (its summary printed) or, without
    one, to this process's; the child's exit code (128 + the signal that ended it)."""
    if log is not None:
        log.parent.mkdir(exist_ok=True)
        runs = _flag(args, "-runs", -1)
        print(f"== fuzz {name}, {runs if runs >= 0 else 'unbounded'} runs (log: {log})", flush=True)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        _child(atheris, name, args, log)
    rc = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    rc = 128 - rc if rc < 0 else rc
    if log is None:
        return rc
    lines = log.read_text(errors="replace").splitlines()
    print("\n".join(line for line in lines if SUMMARY.search(line)), flush=True)
    if rc:
        print("\n".join(lines[-40:]), flush=True)
        print(f"fuzz target {name}: exit {rc}", file=sys.stderr, flush=True)
    return rc
