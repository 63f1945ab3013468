"""Files in and out: inputs opened read-only, outputs written atomically.

An output is written to a temporary file in the destination's folder, flushed to disk, then
renamed over the destination: a crash or a kill at any moment leaves either the old file or the
new one, never a partial file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from brson.errors import BrsonError


class FileError(BrsonError):
    """A file cannot be read or written (missing, permissions, a directory...)."""

    layer = "file"


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        raise FileError("no such file", file=str(path)) from None
    except IsADirectoryError:
        raise FileError("is a directory, not an archive", file=str(path)) from None
    except OSError as exc:
        raise FileError(f"cannot read ({exc.strerror})", file=str(path)) from None


def write_atomic(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` with ``data`` all at once (temp file in the same folder + rename)."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise FileError(f"cannot write ({exc.strerror})", file=str(path)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), _output_mode(target))
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise FileError(f"cannot write ({exc.strerror})", file=str(path)) from None
        raise


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
