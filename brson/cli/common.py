"""What every command shares: the console, options, error reporting and progress."""

from __future__ import annotations

import enum
import functools
import json
import mmap
import os
import sys
import traceback
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ParamSpec, TextIO, TypeVar, cast

import typer

from brson import api
from brson.codecs import Codec, limits
from brson.container import PACKAGE_SUFFIX, codec_for_name, is_package_name
from brson.errors import BrsonError, PackageError
from brson.fileio import (
    GLOB_CHARS,
    FileError,
    OutputSet,
    glob_paths,
    mapped_bytes,
    output_set,
    read_bytes,
    refuse_inputs,
    write_atomic,
)
from brson.model.tree import DataTree

if TYPE_CHECKING:  # the modules a command start does not need are imported where used
    from rich.console import Console
    from rich.progress import Progress

    from brson.package import Package

T = TypeVar("T")
P = ParamSpec("P")

#: Exit codes: success, findings (validate/diff), bad input or usage.
EXIT_OK, EXIT_FINDINGS, EXIT_BAD_INPUT = 0, 1, 2


class _LazyConsole:
    """A rich Console made at its first use, with the ``--color`` setting :func:`set_color`
    recorded.  Why: importing rich's console is a sizeable part of a command's start, and the
    commands that write their data themselves (``show --textconv`` as git's textconv, ``convert``,
    ``merge`` as git's merge driver) print nothing through it when they succeed."""

    def __init__(self, *, to_stderr: bool) -> None:
        self._settings: dict[str, Any] = {
            "stderr": to_stderr,
            "highlight": False,
            "soft_wrap": True,
        }
        self._made: Console | None = None

    @property
    def console(self) -> Console:
        if self._made is None:
            from rich.console import Console

            self._made = Console(**self._settings)
        return self._made

    def configure(self, **settings: Any) -> None:
        """The console's settings; one already made is set up again in place (commands
        imported it by name)."""
        self._settings.update(settings)
        if self._made is not None:
            self._made.__init__(**self._settings)  # type: ignore[misc]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.console, name)

    # rich's own classes (a progress bar's live display) use a console as a context manager,
    # which attribute lookup does not reach.
    def __enter__(self) -> Console:
        return self.console.__enter__()

    def __exit__(self, *exc: Any) -> None:
        self.console.__exit__(*exc)


_stdout, _stderr = _LazyConsole(to_stderr=False), _LazyConsole(to_stderr=True)
#: The command's consoles (each a :class:`_LazyConsole`, used as the Console it makes).
stdout, stderr = cast("Console", _stdout), cast("Console", _stderr)


#: ``--assets DIR`` (repeatable), for every command that reads asset files beside a tree.
AssetsOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--assets",
        help="Folder of asset files named by hash (resdb/packdb URLs, e.g. the engine's cache); "
        "repeatable.",
    ),
]


#: The option declarations several commands share, so each is worded once.
#: The one input of a command that reads a single archive or package.
FileArg = Annotated[
    Path, typer.Argument(metavar="FILE", help="Archive or .resonitepackage to read.")
]
#: The inputs of a command that reads several (see :func:`expand_inputs`).
FilesArg = Annotated[
    list[Path],
    typer.Argument(
        metavar="FILE",
        help="Archives or packages; folders (recursive) and globs name the archives in them.",
    ),
]
#: ``-o/--output`` of a command whose output must be given and is one archive.
ArchiveOutput = Annotated[
    Path, typer.Option("-o", "--output", help="Archive to write; - for stdout.")
]
#: ``--codec`` of a command that writes an archive (see :func:`output_codec`).
CodecOption = Annotated[
    str | None,
    typer.Option(
        help="brotli, lzma, lz4 or none (default: the output's extension, else the input's "
        "codec, else brotli)."
    ),
]
#: ``--legacy/--frdt`` of a command that writes an archive; None keeps the input's framing.
LegacyOption = Annotated[
    bool | None,
    typer.Option(
        "--legacy/--frdt",
        help="Write a headerless NeosVR-style file, or one with the FrDT header (default: the "
        "input's framing, else FrDT; a Brotli output always has the header).",
    ),
]
#: ``--slot/-s`` of a command that can work on one slot's subtree instead of the whole tree.
SubtreeOption = Annotated[
    str | None,
    typer.Option("--slot", "-s", help="Only this slot's subtree: a name, ID or path."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the result as JSON.")]


#: ``-q/--quiet``: the global option, also taken after every command's name.
QUIET_HELP = "Only the results: no summaries, notes or progress bars."
QUIET_VERBOSE = "-q/--quiet and -v/--verbose exclude each other"


class State:
    debug = False
    #: ``-q``: only what was asked for (findings, data); no summaries, notes or progress.
    quiet = False
    #: ``-v``: more about what is done (settings used, full reports).
    verbose = False
    max_size = limits.DEFAULT_MAX_SIZE
    #: The input the running command read last: an error that names no file (a selector or
    #: field that matches nothing) is reported against it, so every message names its file.
    input: str | None = None
    #: An output of the running command is ``-``: standard output carries its data, so its
    #: report (text or ``--json``) goes to stderr (:func:`say`, :func:`print_json`).
    data_on_stdout = False
    #: Inside :func:`outputs`: the report (:func:`say`, :func:`print_json`), shown only once
    #: every output is written, never before an error that leaves nothing written.
    report: list[Callable[[], object]] | None = None


def note(text: str) -> None:
    """A remark on stderr (``brson: note: ...``, ``wrote X``) that ``-q`` silences; errors and
    warnings are not notes and always show.  Inside :func:`outputs` it is part of the report,
    shown once the outputs are written."""
    if not State.quiet:
        _report(lambda: stderr.print(text, markup=False))


def interactive() -> bool:
    """Progress bars only for a person at a terminal, never in CI, pipes or with ``-q``."""
    return sys.stderr.isatty() and not os.environ.get("CI") and not State.quiet


class ColorMode(enum.StrEnum):
    AUTO = "auto"
    ALWAYS = "always"
    NEVER = "never"


def set_color(mode: ColorMode) -> None:
    """``--color``: the two consoles' colour settings (:meth:`_LazyConsole.configure`).

    ``auto`` colours a terminal unless ``NO_COLOR`` is set (rich reads it, and
    ``FORCE_COLOR``); ``always`` colours pipes too and, being asked for on the command line,
    wins over ``NO_COLOR`` (as no-color.org says); ``never`` colours nothing."""
    force = True if mode is ColorMode.ALWAYS else None
    no_color = True if mode is ColorMode.NEVER else (False if force else None)
    for console in (_stdout, _stderr):
        console.configure(
            force_terminal=force,
            no_color=no_color,
            color_system="standard" if force else "auto",
        )


@contextmanager
def progress(description: str, total: int | None = None) -> Iterator[Any]:
    """A rich progress bar on a terminal; a silent stand-in otherwise."""
    if not interactive():
        yield _Silent()
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}"),
        TimeElapsedColumn(),
        console=stderr,
        transient=True,
    ) as bar:
        task = bar.add_task(description, total=total)
        yield _Bound(bar, task)


class _Silent:
    def advance(self, n: int = 1) -> None:
        pass

    def stage(self, description: str) -> None:
        pass


class _Bound:
    def __init__(self, bar: Progress, task: Any) -> None:
        self.bar, self.task = bar, task

    def advance(self, n: int = 1) -> None:
        self.bar.advance(self.task, n)

    def stage(self, description: str) -> None:
        """Name the step now running (with the sizes it handles), then advance by one: for
        work done by one library call (a codec, the JSON encoder), steps are what can be shown."""
        self.bar.update(self.task, description=description, advance=1)


def track(items: Iterable[T], description: str, total: int | None = None) -> Iterator[T]:
    with progress(description, total) as bar:
        for item in items:
            yield item
            bar.advance()


def is_archive_name(name: str | os.PathLike[str]) -> bool:
    """An archive or package by its name: the container layer's extensions, nothing copied."""
    return is_package_name(name) or codec_for_name(os.fspath(name)) is not None


def expand_inputs(args: Iterable[Path]) -> list[Path]:
    """The files a command taking several inputs works on, as ruff and git read them:

    - a directory stands for every archive and package under it (recursively, by extension:
      :data:`brson.container.EXTENSIONS` and ``.resonitepackage``), in sorted order, skipping
      hidden files and folders; a directory holding none stays itself, so the command reports
      it (validate: ``BR101``) rather than silently doing nothing;
    - an argument that names no file and holds ``*``, ``?`` or ``[`` is a glob (``**`` spans
      folders), for shells that passed it through quoted or unexpanded; matching nothing is an
      error (exit 2), as in a shell with ``failglob``;
    - anything else is taken as given (a missing file is reported by the command).

    A file reached twice (named and inside a named directory) is worked on once."""
    out: list[Path] = []
    seen: set[str] = set()

    def add(path: Path) -> None:
        key = os.path.normcase(os.path.abspath(path))
        if key not in seen:
            seen.add(key)
            out.append(path)

    for arg in args:
        text = os.fspath(arg)
        if text != STDIO and not os.path.lexists(text) and GLOB_CHARS & set(text):
            matches = glob_paths(text)
            if not matches:
                raise FileError("no file matches this pattern", file=text)
            for match in matches:
                found = _archives_under(Path(match)) if os.path.isdir(match) else [Path(match)]
                for path in found or [Path(match)]:
                    add(path)
        elif os.path.isdir(text):
            for path in _archives_under(arg) or [arg]:
                add(path)
        else:
            add(arg)
    return out


def _archives_under(folder: Path) -> list[Path]:
    found: list[Path] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found.extend(
            Path(root, name)
            for name in sorted(files)
            if not name.startswith(".") and is_archive_name(name)
        )
    return found


def codec_option(value: str | None) -> Codec | None:
    if value is None:
        return None
    try:
        return Codec.parse(value)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None


def check_output(
    output: Path | None, *inputs: Path, binary: bool = False, option: str = "-o"
) -> None:
    """Check an output argument before any work: never one of the inputs, however spelled
    (:func:`fileio.refuse_inputs`); ``-`` is standard output, refused on a terminal for
    ``binary`` data (archives, packages, glTF), and moves the command's report to stderr."""
    if output is None:
        return
    refuse_inputs(output, *inputs)
    if os.fspath(output) == STDIO:
        if binary and sys.stdout.isatty():
            raise typer.BadParameter(
                "refusing to write binary data to a terminal (redirect stdout)", param_hint=option
            )
        State.data_on_stdout = True


def check_folder_output(output: Path | None, *inputs: Path, option: str = "-o") -> None:
    """An output that is a folder: standard output cannot hold one."""
    if output is not None and os.fspath(output) == STDIO:
        raise typer.BadParameter(
            "names a folder here, and standard output (-) cannot be one", param_hint=option
        )
    check_output(output, *inputs, option=option)


def check_package_output(output: Path, *inputs: Path, option: str = "-o") -> None:
    """An output that can only be a package (a zip): its name must say so, or ``-``.
    Resonite and brson tell a package by its extension, and read any other name as the
    archive its extension names: a zip called ``x.brson`` would be unreadable to both."""
    if os.fspath(output) != STDIO and not is_package_name(output):
        raise typer.BadParameter(
            f"this writes a package (a zip): name the output *{PACKAGE_SUFFIX}", param_hint=option
        )
    check_output(output, *inputs, binary=True, option=option)


class _StandardOutput:
    """Standard output as a :class:`fileio.Sink`, after the text printed before it."""

    def write(self, data: bytes, /) -> int:
        sys.stdout.flush()
        return sys.stdout.buffer.write(data)

    def flush(self) -> None:
        sys.stdout.buffer.flush()


@contextmanager
def outputs() -> Iterator[OutputSet]:
    """Every output the block writes, as one (:func:`fileio.output_set`): all of them when it
    ends without an error, none when it raises; ``-`` is standard output, written last.  The
    report the block makes (:func:`say`, :func:`print_json`) shows after the outputs are all
    written, and not at all when they are not: no success line before an error."""
    if State.report is not None:  # inside another: that one commits
        with output_set() as staged:
            yield staged
        return
    pending: list[Callable[[], object]] = []
    State.report = pending
    try:
        with output_set({STDIO: _StandardOutput()}) as staged:
            yield staged
    finally:
        State.report = None
    for show in pending:
        show()


def writes_outputs(command: Callable[P, None]) -> Callable[P, None]:
    """A command whose whole run is one :func:`outputs` block."""

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        with outputs():
            command(*args, **kwargs)

    return run


def output_codec(option: str | None, output: str, fallback: Codec | None = None) -> Codec | None:
    """``--codec``, else the codec the output's extension implies, else ``fallback``.

    Compared with None on purpose: ``Codec.NONE`` is 0, so an ``or`` chain took ``--codec
    none`` (or a ``.bson`` output) for "not given" and silently wrote Brotli instead."""
    chosen = codec_option(option)
    if chosen is None:
        chosen = codec_for_name(output)
    return fallback if chosen is None else chosen


#: The conventional name for standard input/output in file arguments.
STDIO = "-"


def read_input(path: str | os.PathLike[str]) -> bytes:
    """A file's bytes, or standard input's for ``-`` (so JSON can be piped through jq)."""
    if os.fspath(path) == STDIO:
        return sys.stdin.buffer.read()
    return read_bytes(path, State.max_size)


@contextmanager
def mapped_input(path: str | os.PathLike[str]) -> Iterator[mmap.mmap | bytes]:
    """:func:`read_input` for a reader that goes through the input once: a file comes as a
    read-only mapping (:func:`brson.fileio.mapped_bytes`), standard input as its bytes."""
    if os.fspath(path) == STDIO:
        yield sys.stdin.buffer.read()
        return
    with mapped_bytes(path, State.max_size) as view:
        yield view


def write_output(path: str | os.PathLike[str], data: bytes) -> None:
    """Write atomically, or to standard output for ``-`` (a file literally named ``-``
    surprised everyone who typed ``-o -``)."""
    with outputs():
        write_atomic(path, data)


def report_console() -> Console:
    """Where a command's report goes: stdout, or stderr when stdout carries its data."""
    return stderr if State.data_on_stdout else stdout


def say(text: str) -> None:
    """A line of a command's report (:func:`report_console`); inside :func:`outputs`, shown
    once the outputs are written."""
    _report(lambda: report_console().print(text, markup=False))


def print_json(data: Any) -> None:
    """A JSON result or report: on stdout, or on stderr when stdout carries data (``-o -``);
    inside :func:`outputs`, once the outputs are written."""
    print_json_text([json.dumps(data, indent=2, ensure_ascii=False)])


def print_json_text(parts: list[str]) -> None:
    """:func:`print_json` of JSON already written as text, in parts written one after
    another (a listing too big for ``json.dumps``' indenting encoder, which is pure Python:
    a call per value; and too big to hold twice, joined)."""

    def show() -> None:
        out = _report_stream()
        for part in parts:
            out.write(part)
        out.write("\n")

    _report(show)


class JsonList:
    """A JSON list written as :func:`print_json_text` writes it, each entry as soon as it is
    whole (a listing too big to hold as text until the last file is read).  The caller
    computes all of an entry that can fail before handing over its text, so a file that
    fails leaves no part of its entry, and :meth:`close` ends the list (``[]`` when no entry
    came).  For a command that writes no output file: inside :func:`outputs` the report
    waits for the outputs, which an entry written now would not."""

    def __init__(self) -> None:
        self.entries = 0

    def add(self, parts: Iterable[str]) -> None:
        """One entry, its text in ``parts`` (written as each comes)."""
        out = _report_stream()
        out.write(",\n" if self.entries else "[\n")
        for part in parts:
            out.write(part)
        self.entries += 1

    def close(self) -> None:
        _report_stream().write("\n]\n" if self.entries else "[]\n")


def _report_stream() -> TextIO:
    """:func:`report_console`'s stream, for text written as is."""
    return sys.stderr if State.data_on_stdout else sys.stdout


def _report(show: Callable[[], object]) -> None:
    if State.report is None:
        show()
    else:
        State.report.append(show)


def for_each_input(paths: Iterable[Path], work: Callable[[Path], None]) -> int:
    """The rule of every command that reads several files (``paths``, from
    :func:`expand_inputs`): ``work`` runs on each; a file it fails on is named on stderr in one
    line and the next one goes on, so every good file is reported.  Returns how many failed:
    the command then ends with :func:`end_inputs` (exit 2 if any did)."""
    failed = 0
    for path in paths:
        try:
            work(path)
        except BrsonError as exc:
            if State.debug:
                traceback.print_exc()
            stderr.print(f"brson: {exc.in_file(str(path))}", markup=False)
            failed += 1
    State.input = None
    return failed


def end_inputs(failed: int) -> None:
    """Exit 2 when :func:`for_each_input` could not read a file (after all were reported)."""
    if failed:
        raise typer.Exit(EXIT_BAD_INPUT)


def human_size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{int(size)} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def load_tree(path: Path) -> DataTree:
    """An input archive's tree, with the file remembered for errors raised later (a tree
    too deep for the JSON form is only found while converting, after ``load`` returned)."""
    State.input = str(path)
    return api.load(path, max_size=State.max_size)


class Source:
    """An input file: its tree and, for a ``.resonitepackage``, the package around it (the
    commands that write report or keep its assets; ``info`` says it is one)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        State.input = str(path)
        self.package: Package | None = None
        if is_package_name(path):
            from brson.package import load_package

            self.package = load_package(path, max_size=State.max_size)
            self.tree: DataTree = self.package.tree
        else:
            self.tree = api.load(path, max_size=State.max_size)
        try:  # checked now, so a malformed table is reported against this file, not another
            self.tree.types  # noqa: B018
        except BrsonError as exc:
            raise exc.in_file(str(path)) from None


def save_package(tree: DataTree, output: Path, packages: list[Package]) -> None:
    """Write ``tree`` as a ``.resonitepackage`` holding the assets it names, taken from
    ``packages`` (the inputs that are packages; the first one's record is kept).  With no
    package among the inputs, a new record; a tree naming package assets then fails, since
    nothing holds them."""
    from brson.package import AssetMetadata, Package, new_record, packdb_names, write_package

    name = tree.root.name if isinstance(tree.root.name, str) else output.stem
    wanted = packdb_names(tree.to_bson())
    if not packages:
        if wanted:
            raise PackageError(
                f"the tree names package assets ({', '.join(wanted)}) but "
                "no input is a package to take them from",
                file=str(output),
            )
        write_package(output, tree, new_record(name))
        return
    assets: dict[str, bytes] = {}
    metadata: dict[str, AssetMetadata] = {}
    for package in packages:
        for asset in wanted:
            if asset in package.assets and asset not in assets:
                assets[asset] = package.assets[asset]
                if asset in package.metadata:
                    metadata[asset] = package.metadata[asset]
    first = packages[0]
    combined = Package(
        record=dict(first.record), tree=tree, assets=assets, metadata=metadata, path=first.path
    )
    combined.for_tree(tree).save(output)
