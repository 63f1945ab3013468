"""Measuring one operation in a fresh process.

The child side: ``run.py --child SPEC`` imports all of brson (the baseline), runs the operation
once for its peak memory and output digest, then again for the time, and prints one JSON line.
The driver side: starting that child, timing a whole process from the kernel's accounting, and
running the JS peer.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import importlib
import json
import os
import pkgutil
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import worlds
from operations import MAX_SIZE, OPS, Op, World

HERE = Path(__file__).resolve().parent
#: The runner script: a child process is ``run.py --child SPEC``.
RUNNER = HERE / "run.py"

# -- the child process ------------------------------------------------------------------------


def max_rss() -> int:
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
    baseline = max_rss()
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
            result["peak_rss"] = max_rss() - baseline
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
    peak_rss = max_rss() - baseline
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


# -- the driver's side: starting a measurement ----------------------------------------------


def _brson_script() -> str:
    script = Path(sys.executable).parent / "brson"
    return str(script) if script.exists() else "brson"


def run_child(
    op: Op, ctx: dict[str, Any], reps: int, timeout: float, scratch: Path, profile: int = 0
) -> dict[str, Any]:
    fields = dict(ctx["fields"])
    if op.output and op.output != "stdout":
        fields["output"] = str(scratch / op.output.format(ext=ctx["ext"]))
    spec = {**ctx, "op": op.name, "reps": reps, "fields": fields, "scratch": str(scratch)}
    if profile:
        spec["profile"] = profile
    cmd = [sys.executable, str(RUNNER), "--child", json.dumps(spec)]
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


def run_process(op: Op, reps: int, timeout: float) -> dict[str, Any]:
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


def run_js(path: Path, reps: int, timeout: float) -> dict[str, Any]:
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
