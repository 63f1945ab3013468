"""Running a scan: the corpus cut into batches, each batch scanned and written as a shard by a
worker (a local process pool, or a Dask cluster), each shard committed as it arrives.

Both engines run the same :func:`brson.scan.shards.scan_batch` and the coordinator commits
the same way, so the tables they give are identical (tests/scan check it).  Workers write
shards themselves and send back only counts: the coordinator's memory holds the file list
and the previous scan's state, never rows (docs/scan.md, the million-file design).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import time
import uuid
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from brson.fileio import refuse_inputs
from brson.scan import corpus, index, shards
from brson.scan.deps import ScanError, need
from brson.scan.extract import Options, Task
from brson.scan.shards import BatchResult, scan_batch

#: Files per shard: big enough that a million files make ~4,000 shards, small enough that a
#: killed scan loses little work and the progress moves.
DEFAULT_BATCH = 256


@dataclass
class Summary:
    """What a scan did (the CLI's summary line; the benchmark's figures)."""

    files: int = 0
    scanned: int = 0
    unchanged: int = 0
    failed: int = 0
    deleted: int = 0
    shards: int = 0
    rows: int = 0
    seconds: float = 0.0
    engine: str = "local"
    workers: int = 1
    extra: dict[str, Any] = field(default_factory=dict)
    #: The first files that failed and why (:data:`shards.FAILURES_NAMED` of them at most).
    failures: list[tuple[str, str]] = field(default_factory=list)

    @property
    def files_per_second(self) -> float:
        return self.files / self.seconds if self.seconds else 0.0


#: Called after each committed batch with the summary so far (the CLI draws progress).
Progress = Callable[[Summary], None]


def scan(
    paths: Sequence[str | os.PathLike[str]],
    output: str | os.PathLike[str],
    *,
    options: Options | None = None,
    workers: int = 1,
    engine: str = "local",
    scheduler: str | None = None,
    batch: int = DEFAULT_BATCH,
    progress: Progress | None = None,
    compact: bool = False,
) -> Summary:
    """Scan ``paths`` into the index folder ``output`` (created, or updated incrementally);
    ``compact``: then rewrite the live rows as one shard (see :func:`index.compact`)."""
    options = options or Options()
    if workers < 1:
        raise ScanError("--workers must be at least 1")
    if batch < 1:
        raise ScanError("--batch must be at least 1")
    if engine not in ("local", "dask"):
        raise ScanError(f"unknown engine {engine!r} (local or dask)")
    if scheduler is not None and engine != "dask":
        raise ScanError("--scheduler is for --engine dask")
    need("duckdb")
    need("pyarrow")
    if engine == "dask":
        need("dask.distributed")
    root = Path(output).absolute()
    refuse_inputs(root, *paths)
    started = time.perf_counter()
    summary = Summary(engine=engine, workers=workers)
    with index.writing(root) as marker:
        entries = corpus.walk(paths)
        summary.files = len(entries)
        # Rows made with other options (no findings, no refs...) are not reused: every file
        # is scanned again. Until this scan completes, the marker says the index is mixed
        # (options null), so a scan killed now and run again rescans everything too; a new
        # index records its options at once, so its own killed scan resumes.
        same_options = marker is not None and marker.get("options") == options.as_dict()
        index.write_marker(root, options if marker is None or same_options else None)
        known = index.known_files(root)
        scan_number = index.next_scan(root)
        tasks = []
        for entry in entries:
            name = entry.name
            before = known.get(name) if same_options else None
            unchanged = (
                before is not None
                and before.size == entry.size
                and before.mtime_ns == entry.mtime_ns
                and entry.size is not None
            )
            sha = before.sha256 if before is not None and unchanged else None
            renamed = name if name != entry.path else None
            tasks.append(Task(entry.path, entry.size, entry.mtime_ns, sha, renamed))
        listed = {entry.name for entry in entries}
        gone = sorted(p for p in known if p not in listed and not os.path.lexists(p))
        batches = [tasks[i : i + batch] for i in range(0, len(tasks), batch)]
        named = [(shards.shard_name(scan_number, n + 1), b) for n, b in enumerate(batches)]

        def committed(result: BatchResult) -> None:
            if result.shard is not None:
                try:
                    shards.commit(root, result.shard)
                except OSError as exc:
                    raise ScanError(
                        f"cannot commit shard {result.shard} ({exc.strerror}): with --engine "
                        "dask every worker must see the index folder at this same path",
                        file=str(root),
                    ) from None
                summary.shards += 1
            summary.scanned += result.scanned
            summary.unchanged += result.unchanged
            summary.failed += result.failed
            summary.failures += result.failures[: shards.FAILURES_NAMED - len(summary.failures)]
            summary.rows += result.rows
            summary.seconds = time.perf_counter() - started
            if progress is not None:
                progress(summary)

        if named:
            with (_dask if engine == "dask" else _local)(workers, scheduler) as runner:
                for result in _run(runner, root, named, options):
                    committed(result)
        if gone:
            index.write_deleted(root, shards.shard_name(scan_number, len(named) + 1), gone)
            summary.deleted = len(gone)
            summary.shards += 1
        index.write_marker(root, options)
        if compact:
            summary.extra["compacted_shards"] = index.compact(root)
        index.write_database(root)
    summary.seconds = time.perf_counter() - started
    return summary


Batches = list[tuple[str, list[Task]]]


@dataclass
class _Runner:
    """What an engine lends :func:`_run`: how to start a batch, wait for some, and take one's
    result (its failures said in the engine's own terms)."""

    #: Batches in flight at most: enough to keep every worker busy, few enough that memory
    #: stays bounded and a stop is prompt.
    slots: int
    #: ``(name, args)`` -> a future of ``scan_batch(*args)``; ``name`` is unique in the scan.
    submit: Callable[[str, tuple[Any, ...]], Any]
    #: The futures among those running that are done (at least one; blocks until then).
    first_done: Callable[[Collection[Any]], Iterable[Any]]
    #: A done future's result, given the tasks it ran.
    result: Callable[[Any, list[Task]], BatchResult]


def _run(runner: _Runner, root: Path, batches: Batches, options: Options) -> Iterator[BatchResult]:
    """Every batch through ``runner``, at most ``runner.slots`` in flight, results in the
    order they finish."""
    pending = iter(batches)
    running: dict[Any, list[Task]] = {}

    def fill() -> None:
        for name, tasks in pending:
            running[runner.submit(name, (str(root), name, tasks, options))] = tasks
            if len(running) >= runner.slots:
                return

    fill()
    while running:
        for future in runner.first_done(running):
            yield runner.result(future, running.pop(future))
        fill()


#: Imported once in the local pool's forkserver, which every worker is forked from:
#: pyarrow.parquet (each worker writes its shards with it) would cost every new worker ~0.4 s
#: of CPU.
FORKSERVER_PRELOAD = ("brson.scan.shards", "pyarrow.parquet")


@contextmanager
def _local(workers: int, _scheduler: str | None) -> Iterator[_Runner]:
    """A process pool, two batches per worker in flight (``scan`` refused a scheduler)."""
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if "forkserver" in methods:
        context.set_forkserver_preload(list(FORKSERVER_PRELOAD))

    def result(future: Future[BatchResult], tasks: list[Task]) -> BatchResult:
        try:
            return future.result()
        except BrokenProcessPool:
            raise ScanError(
                f"a worker process died while scanning {len(tasks)} files from "
                f"{tasks[0].path}; committed shards are kept, run the scan again"
            ) from None

    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        yield _Runner(
            slots=2 * workers,
            submit=lambda _name, args: pool.submit(scan_batch, *args),
            first_done=lambda running: wait(running, return_when=FIRST_COMPLETED).done,
            result=result,
        )


@contextmanager
def _dask(workers: int, scheduler: str | None) -> Iterator[_Runner]:
    """The same batches on a Dask cluster: ``scheduler`` (an address), or a LocalCluster of
    ``workers`` single-threaded processes.  Workers write shards to the index folder, which
    must be on a filesystem they share with this process (docs/scan.md)."""
    distributed = need("dask.distributed")
    cluster: Any = None
    if scheduler is None:
        cluster = distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        client = distributed.Client(cluster)
    else:
        try:
            client = distributed.Client(scheduler, timeout="30s")
        except (OSError, TimeoutError) as exc:
            raise ScanError(f"cannot reach the Dask scheduler {scheduler}: {exc}") from None
    token = uuid.uuid4().hex[:12]  # keys unique on a shared scheduler

    def result(future: Any, _tasks: list[Task]) -> BatchResult:
        try:
            done: BatchResult = future.result()
        except Exception as exc:
            raise ScanError(f"a Dask task failed: {type(exc).__name__}: {exc}") from None
        future.release()
        return done

    try:
        yield _Runner(
            slots=max(2 * workers, 2 * len(client.scheduler_info().get("workers", {}))),
            submit=lambda name, args: client.submit(
                scan_batch, *args, key=f"brson-scan-{token}-{name}"
            ),
            first_done=lambda running: (
                distributed.wait(list(running), return_when="FIRST_COMPLETED").done
            ),
            result=result,
        )
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
