"""The ``brson`` console command's entry point (``[project.scripts]``, ``python -m brson``).

Kept free of typer and rich: ``brson --version`` answers from here without importing them or
any command (~0.4 s of CPU before, most of it imports), and everything else goes to
:mod:`brson.cli.root`, which builds the command line and imports a command's module only when
that command runs.
"""

from __future__ import annotations

import signal
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the app, turning every error into one line and an exit code."""
    from brson.cli.root import main as run_main

    return run_main(argv)


def run() -> None:
    """The console command.  A reader that closes the pipe early (``brson tree X | head``)
    ends the process the Unix way, silently by SIGPIPE as ``cat`` does: click would otherwise
    exit 1, which here means "findings".  Outputs are written atomically, so nothing is lost."""
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if sys.argv[1:] == ["--version"]:
        # The same line the --version option prints (plain text: no markup, no highlighting).
        from brson import __version__

        sys.stdout.write(f"brson {__version__}\n")
        sys.stdout.flush()
        sys.exit(0)
    code = main()
    from brson.collector import skip_exit_collection

    skip_exit_collection()
    sys.exit(code)


def __getattr__(name: str) -> Any:
    """``app``: the typer app with every command registered (:func:`brson.cli.root.assembled`),
    for tools and tests that read typer's registrations; building it imports every command."""
    if name == "app":
        from brson.cli.root import assembled

        return assembled()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if TYPE_CHECKING:
    app: typer.Typer
