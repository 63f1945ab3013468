"""Files in and out: inputs opened read-only, outputs written atomically.

An output is written to a temporary file in the destination's folder, flushed to disk, then
renamed over the destination: a crash or a kill at any moment leaves either the old file or the
new one, never a partial file.  An operation with several outputs stages them all in an
:func:`output_set` and renames them together: all of them or none.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import mmap
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import BinaryIO, Protocol, cast

from brson.errors import BrsonError, LimitError


class FileError(BrsonError):
    """A file cannot be read or written (missing, permissions, a directory...)."""

    layer = "file"


#: Reads grow by this much past the size ``fstat`` gave (a file growing while it is read, a
#: ``/proc`` file that says 0 bytes), so the limit is checked before memory grows further.
_STEP = 1 << 20

#: What a file that is not a regular one is, for the error line.
_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def read_bytes(path: str | os.PathLike[str], max_size: int | None = None) -> bytes:
    """The bytes of an input file, refusing before reading anything that is not one.

    Every input is read here, so every command refuses the same things the same way:

    - only a regular file is read (a symlink to one is fine).  A FIFO would block the read
      forever, ``/dev/zero`` never ends, a socket or a device is not a file: each is refused
      with one line naming what it is.  The file is opened non-blocking (opening a FIFO
      with no writer would block too) and checked on the opened descriptor, so a file
      swapped after the check is still caught;
    - ``max_size`` (``--max-size``) bounds the file itself, before a byte is read: a file
      on disk is never larger than what it decompresses to in any sensible archive, so a
      100 GiB sparse file is refused at once, not read until memory runs out.  A file that
      grows while it is read is bounded the same way."""
    with _opened_regular(path, max_size) as (handle, size):
        return _read_rest(handle, str(path), max_size, size)


@contextlib.contextmanager
def mapped_bytes(
    path: str | os.PathLike[str], max_size: int | None = None
) -> Iterator[mmap.mmap | bytes]:
    """An input file as a read-only mapping, refused as :func:`read_bytes` refuses, for a
    reader that goes through it once and may hand the pages it read back to the kernel, so
    the file is never resident whole. A file ``fstat`` calls empty (a ``/proc`` file) or one
    its file system cannot map is read instead. The file must not shrink while it is mapped
    (a read past its new end is a bus error): inputs are the user's own files."""
    with _opened_regular(path, max_size) as (handle, size):
        view = None
        if size:
            with contextlib.suppress(OSError, ValueError):
                view = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        if view is None:
            yield _read_rest(handle, str(path), max_size, size)
            return
        with view:
            yield view


@contextlib.contextmanager
def _opened_regular(
    path: str | os.PathLike[str], max_size: int | None
) -> Iterator[tuple[BinaryIO, int]]:
    """The opened file and its size, every refusal (see :func:`read_bytes`) one FileError."""
    name = str(path)
    try:
        mode = os.stat(path).st_mode  # refuse without opening when we can
        if stat.S_ISDIR(mode):
            raise IsADirectoryError
        kind = _special_kind(mode)
        if kind is not None:
            raise FileError(f"not a regular file ({kind}); brson reads files only", file=name)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
        with open(fd, "rb", closefd=True) as handle:
            info = os.fstat(handle.fileno())
            if stat.S_ISDIR(info.st_mode):
                raise IsADirectoryError
            if not stat.S_ISREG(info.st_mode):
                kind = _special_kind(info.st_mode) or "not a file"
                raise FileError(f"not a regular file ({kind}); brson reads files only", file=name)
            _check_size(info.st_size, max_size, name)
            yield handle, info.st_size
    except FileNotFoundError:
        raise FileError("no such file", file=name) from None
    except IsADirectoryError:
        raise FileError("is a directory, not an archive", file=name) from None
    except OSError as exc:
        raise FileError(f"cannot read ({exc.strerror})", file=name) from None


def _special_kind(mode: int) -> str | None:
    for test, kind in _KINDS:
        if test(mode):
            return kind
    return None


def _read_rest(handle: BinaryIO, name: str, max_size: int | None, size: int) -> bytes:
    data = handle.read(size) if size else b""
    more = handle.read(_STEP)
    if not more:
        return data
    pieces, total = [data], len(data)
    while more:
        total += len(more)
        _check_size(total, max_size, name)
        pieces.append(more)
        more = handle.read(_STEP)
    return b"".join(pieces)


def _check_size(size: int, max_size: int | None, name: str) -> None:
    if max_size is not None and size > max_size:
        raise LimitError(
            f"the file is {size} bytes, over the limit of {max_size} bytes for one input "
            "(raise it with --max-size or max_size=... if the file is trusted)",
            file=name,
        )


#: Characters that make an argument a glob pattern (as the shell reads them).
GLOB_CHARS = frozenset("*?[")


def glob_paths(pattern: str) -> list[str]:
    """What a shell's glob gives for ``pattern`` (``**`` spans folders), sorted, without ever
    following a symlinked folder: :func:`glob.glob` follows them under ``**``, so one
    ``loop -> ..`` link made it run forever.  A symlinked folder the pattern matches is left
    out too, since every caller enters the folders it is given (a ``d0 -> ../..`` match made a
    scan walk the whole disk).  Names starting with a dot match only a pattern that starts
    with one, as in a shell."""
    parts = [p for p in pattern.split(os.sep) if p not in ("", ".")]
    base = os.sep if pattern.startswith(os.sep) else ""
    fixed = 0
    while fixed < len(parts) and not GLOB_CHARS & set(parts[fixed]):
        fixed += 1
    base = os.path.join(base, *parts[:fixed]) if fixed else (base or "")
    wanted = parts[fixed:]
    if not wanted:
        return [base] if os.path.lexists(base) else []
    found: list[str] = []
    start = base or os.curdir
    # Folders are entered only as deep as the pattern can reach: to its first ``**``, each
    # must match its component (``/tmp/g?/a`` does not walk all of /tmp).
    reach = wanted.index("**") if "**" in wanted else len(wanted) - 1
    for folder, dirs, files in os.walk(start):  # symlinked folders are not entered
        rel = os.path.relpath(folder, start)
        here = [] if rel == os.curdir else rel.split(os.sep)
        names = sorted(dirs + files)
        if len(here) < reach:
            dirs[:] = [d for d in dirs if _glob_match((wanted[len(here)],), (d,))]
        elif reach < len(wanted) - 1 or "**" in wanted:
            dirs[:] = [d for d in dirs if not d.startswith(".")]
        else:
            dirs.clear()
        dirs.sort()
        for name in names:
            if _glob_match(tuple(wanted), (*here, name)):
                path = os.path.join(base, *here, name) if base else os.path.join(*here, name)
                if not (os.path.islink(path) and os.path.isdir(path)):
                    found.append(path)
    return sorted(found)


def _glob_match(pattern: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    """Whether path components ``parts`` match glob components ``pattern`` (``**``: zero
    or more folders).  Polynomial: each (pattern, path) suffix pair is tried once."""
    import fnmatch

    @functools.cache
    def match(i: int, j: int) -> bool:
        if i == len(pattern):
            return j == len(parts)
        if pattern[i] == "**":
            if match(i + 1, j):
                return True
            return j < len(parts) and not parts[j].startswith(".") and match(i, j + 1)
        if j == len(parts):
            return False
        name = parts[j]
        if name.startswith(".") and not pattern[i].startswith("."):
            return False
        return fnmatch.fnmatchcase(name, pattern[i]) and match(i + 1, j + 1)

    return match(0, 0)


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name one file, however spelled: relative or absolute, ``./``, a
    symlink, a hard link (same device and inode). A path that does not exist is no file."""
    try:
        first, second = os.stat(a), os.stat(b)
    except OSError:
        return False
    return (first.st_dev, first.st_ino) == (second.st_dev, second.st_ino)


def refuse_inputs(output: str | os.PathLike[str], *inputs: str | os.PathLike[str]) -> None:
    """The one rule every writing command applies: never write over any of its inputs (the
    atomic write would replace the source with the result, and the original would be gone)."""
    for source in inputs:
        if str(source) != "-" and str(output) != "-" and same_file(output, source):
            raise FileError(
                f"is an input of this command ({source}); brson never writes over its inputs: "
                "write elsewhere, then rename",
                file=str(output),
            )


#: Temporaries are ``.NAME.PID.RANDOM.tmp`` beside the output; one older than this whose
#: writer is gone was left by a killed run and is removed by the next write to NAME.
STALE_SECONDS = 60.0


def write_atomic(path: str | os.PathLike[str], data: bytes | Iterable[bytes]) -> None:
    """Replace ``path`` with ``data`` all at once (temp file in the same folder + rename).

    ``data`` may come in pieces (an iterable of bytes), so a large output need not be held
    whole; the rename still happens only after the last piece.

    Only a regular file (or nothing) is replaced by a rename: a FIFO, a character device or
    ``/proc/self/fd/1`` behind a symlink is written to directly, as ``cat > OUT`` would, and a
    symlink to a regular file keeps being a symlink (its target is replaced)."""
    with atomic_output(path) as handle:
        if isinstance(data, bytes | bytearray | memoryview):
            handle.write(data)
        else:
            for piece in data:
                handle.write(piece)


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """:func:`write_atomic` for a writer that streams: the block writes to the handle, and
    ``path`` is replaced when it ends without an exception (on one, the temp file goes and
    ``path`` is untouched), so an output need not be held whole in memory first.

    Inside :func:`output_set`, ``path`` is only staged: it is replaced when the set commits."""
    outputs = _ACTIVE.get()
    if outputs is not None:
        with outputs.stage(path) as handle:
            yield handle
        return
    target, special = _destination(path)
    if special:
        with _write_through(target) as handle:
            yield handle
        return
    temporary = _Temporary(path, target)
    with temporary.writing() as handle:
        yield handle
    temporary.commit()
    temporary.forget()


def _destination(path: str | os.PathLike[str]) -> tuple[Path, bool]:
    """The file a write to ``path`` replaces (a symlink's target), and whether it is special
    (a FIFO, a device: written through, since a rename would replace it)."""
    target = Path(path)
    try:
        info = os.stat(target)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise FileError(f"cannot write ({exc.strerror})", file=str(path)) from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise FileError("is a directory", file=str(path))
    if info is not None and not stat.S_ISREG(info.st_mode):
        return target, True
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    return target, False


class _Temporary:
    """A temporary file beside ``target`` (same folder, so the rename is atomic) that becomes
    ``target`` on :meth:`commit`; until :meth:`forget`, :meth:`revert` puts the old file back
    (kept by a hard link where the file system allows one) or removes a new one."""

    def __init__(self, path: str | os.PathLike[str], target: Path) -> None:
        self.shown, self.target = str(path), target
        folder = target.parent if str(target.parent) else Path(".")
        _remove_stale(folder, target.name)
        try:
            fd, self.name = tempfile.mkstemp(
                prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=folder
            )
        except OSError as exc:
            raise FileError(f"cannot write ({exc.strerror})", file=self.shown) from None
        self.fd: int | None = fd
        self.backup: str | None = None
        self.existed = False

    @contextlib.contextmanager
    def writing(self) -> Iterator[BinaryIO]:
        """The open temporary; flushed to disk when the block ends, removed if it raises."""
        assert self.fd is not None
        fd, self.fd = self.fd, None
        try:
            with os.fdopen(fd, "wb") as handle:
                os.fchmod(handle.fileno(), _output_mode(self.target))
                yield handle
                handle.flush()
                os.fsync(handle.fileno())
        except BaseException as exc:
            self.discard()
            if isinstance(exc, OSError):
                raise FileError(f"cannot write ({exc.strerror})", file=self.shown) from None
            raise

    def commit(self, keep_old: bool = False) -> None:
        """Rename the temporary over the target; with ``keep_old``, first link the old file
        to a name of its own, for :meth:`revert`."""
        self.existed = os.path.lexists(self.target)
        if keep_old and self.existed:
            backup = f"{self.name[: -len('.tmp')]}.old.tmp"
            with contextlib.suppress(OSError):
                os.link(self.target, backup)
                self.backup = backup
        try:
            os.replace(self.name, self.target)
        except OSError as exc:
            self.discard()
            raise FileError(f"cannot write ({exc.strerror})", file=self.shown) from None

    def revert(self) -> None:
        with contextlib.suppress(OSError):
            if self.backup is not None:
                os.replace(self.backup, self.target)
                self.backup = None
            elif not self.existed:
                os.unlink(self.target)

    def forget(self) -> None:
        if self.backup is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.backup)
            self.backup = None

    def discard(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None
        with contextlib.suppress(OSError):
            os.unlink(self.name)
        self.forget()


class Sink(Protocol):
    """Where a named stream's bytes go (the CLI's standard output)."""

    def write(self, data: bytes, /) -> int: ...

    def flush(self) -> None: ...


class _Held:
    """An output that cannot be staged beside itself (a named stream, a FIFO, a device): its
    bytes are held (in memory up to :data:`HELD_IN_MEMORY`, then in a temporary file) and
    written out when the set commits."""

    def __init__(self, shown: str, sink: Sink | Path) -> None:
        self.shown, self.sink = shown, sink
        self.spool = tempfile.SpooledTemporaryFile(max_size=HELD_IN_MEMORY)  # noqa: SIM115

    def commit(self, keep_old: bool = False) -> None:
        del keep_old  # a stream cannot be taken back
        self.spool.seek(0)
        try:
            if isinstance(self.sink, Path):
                with open(self.sink, "wb") as handle:
                    shutil.copyfileobj(self.spool, handle)
            else:
                while piece := self.spool.read(1 << 20):
                    self.sink.write(piece)
                self.sink.flush()
        except OSError as exc:
            raise FileError(f"cannot write ({exc.strerror})", file=self.shown) from None
        finally:
            self.spool.close()

    def revert(self) -> None:
        pass

    def forget(self) -> None:
        pass

    def discard(self) -> None:
        self.spool.close()


#: Bytes of a held output (:class:`_Held`) kept in memory before it spills to a temporary file.
HELD_IN_MEMORY = 16 << 20


class OutputSet:
    """Several outputs of one operation, written as one: all of them or none.

    Each output written inside :func:`output_set` (by :func:`write_atomic` or
    :func:`atomic_output`, whoever calls them) is staged: written in full to a temporary beside
    it and flushed to disk, but not renamed.  When the block ends without an exception, the
    temporaries are renamed into place one after the other; if a rename fails, those already
    renamed are put back (the old file through a hard link kept for the purpose, or a new one
    removed).  When the block raises, every temporary goes and no output has changed.

    Named streams (``streams``: the CLI maps ``-`` to standard output) and special files are
    held and written after the files, so a failure half-way leaves nothing in them either.
    Two outputs naming one file are refused: the second would silently replace the first."""

    def __init__(self, streams: Mapping[str, Sink] | None = None) -> None:
        self.streams = dict(streams or {})
        self.pending: list[_Temporary | _Held] = []
        self.names: dict[str, str] = {}

    def _claim(self, key: str, shown: str) -> None:
        if key in self.names:
            raise FileError(
                f"is written twice by this command (also as {self.names[key]}): the second "
                "output would replace the first",
                file=shown,
            )
        self.names[key] = shown

    @contextlib.contextmanager
    def stage(self, path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
        shown = os.fspath(path)
        sink: Sink | Path | None = self.streams.get(shown)
        if sink is None:
            target, special = _destination(path)
            if not special:
                self._claim(os.path.realpath(target), shown)
                temporary = _Temporary(path, target)
                with temporary.writing() as handle:
                    yield handle
                self.pending.append(temporary)
                return
            sink = target
        self._claim(os.path.realpath(sink) if isinstance(sink, Path) else shown, shown)
        held = _Held(shown, sink)
        try:
            yield cast(BinaryIO, held.spool)
        except BaseException:
            held.discard()
            raise
        self.pending.append(held)

    def commit(self) -> None:
        """Files first (they can be taken back), then held outputs, in the order written."""
        order = sorted(self.pending, key=lambda item: isinstance(item, _Held))
        done: list[_Temporary | _Held] = []
        try:
            for item in order:
                item.commit(keep_old=len(order) > 1)
                done.append(item)
        except BaseException:
            for item in reversed(done):
                item.revert()
            for item in order[len(done) :]:
                item.discard()
            raise
        finally:
            self.pending = []
        for item in done:
            item.forget()

    def discard(self) -> None:
        for item in self.pending:
            item.discard()
        self.pending = []


_ACTIVE: contextvars.ContextVar[OutputSet | None] = contextvars.ContextVar(
    "brson_output_set", default=None
)


@contextlib.contextmanager
def output_set(streams: Mapping[str, Sink] | None = None) -> Iterator[OutputSet]:
    """Stage every output the block writes and commit them together (:class:`OutputSet`).
    Inside another set, the block joins it: the outer one commits."""
    outer = _ACTIVE.get()
    if outer is not None:
        yield outer
        return
    outputs = OutputSet(streams)
    token = _ACTIVE.set(outputs)
    try:
        yield outputs
    except BaseException:
        outputs.discard()
        raise
    finally:
        _ACTIVE.reset(token)
    outputs.commit()


@contextlib.contextmanager
def _write_through(target: Path) -> Iterator[BinaryIO]:
    """Stream into a special file (FIFO, device): renaming over it would replace it."""
    try:
        with open(target, "wb") as handle:
            yield handle
    except OSError as exc:
        raise FileError(f"cannot write ({exc.strerror})", file=str(target)) from None


def _remove_stale(folder: Path, name: str) -> None:
    """Remove temporaries of ``name`` provably left by a killed writer: our name pattern, a
    pid that no longer runs, and older than :data:`STALE_SECONDS`."""
    prefix = f".{name}."
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    now = time.time()
    for entry in entries:
        if not (entry.name.startswith(prefix) and entry.name.endswith(".tmp")):
            continue
        pid_text = entry.name[len(prefix) :].split(".", 1)[0]
        if not pid_text.isdigit():
            continue
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            if now - entry.stat(follow_symlinks=False).st_mtime < STALE_SECONDS:
                continue
        except OSError:
            continue
        if _alive(int(pid_text)):
            continue
        with contextlib.suppress(OSError):
            os.unlink(entry.path)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def _output_mode(target: Path) -> int:
    """The permissions ``open(target, "w")`` would have given: a replaced file keeps its own,
    a new one gets 0o666 less the umask. ``mkstemp`` creates 0o600, which would leave every
    archive, package and exported asset unreadable to the rest of the machine (a web server,
    a CI step running as another user)."""
    try:
        return os.stat(target).st_mode & 0o7777
    except OSError:
        mask = os.umask(0o022)
        os.umask(mask)
        return 0o666 & ~mask


class LockedError(FileError):
    """Another process holds the lock (:func:`exclusive_lock`)."""


def fsync_path(path: str | os.PathLike[str]) -> None:
    """Flush a file or a folder (its entries: a rename into it) to disk; best effort, for
    writers whose atomic step is a folder rename (brson.scan's shards)."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def exclusive_lock(path: str | os.PathLike[str]) -> Iterator[None]:
    """Hold an advisory lock on ``path`` (created empty if missing) for the block; FileError
    at once if another process holds it.  The kernel drops it when the holder dies, even by
    SIGKILL, so a killed writer never leaves a stale lock behind."""
    import fcntl

    try:
        handle = open(path, "a+b")  # noqa: SIM115  (held for the block)
    except OSError as exc:
        raise FileError(f"cannot create the lock file ({exc.strerror})", file=str(path)) from None
    try:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise LockedError("is locked by another process", file=str(path)) from None
        yield
    finally:
        handle.close()
