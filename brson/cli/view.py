"""``brson view``: look at an archive in the browser (a local server, or one HTML file)."""

from __future__ import annotations

import signal
import webbrowser
from pathlib import Path
from typing import Annotated

import typer

from brson.cli.common import (
    AssetsOption,
    FileArg,
    State,
    check_output,
    outputs,
    say,
    stderr,
    stdout,
)
from brson.errors import BrsonError
from brson.fileio import write_atomic

app = typer.Typer()


@app.command("view")
def view_command(
    src: FileArg,
    port: Annotated[
        int,
        typer.Option("--port", help="Port on 127.0.0.1 (default: a free one).", min=0, max=65535),
    ] = 0,
    no_browser: Annotated[
        bool, typer.Option("--no-browser", help="Print the URL; do not open a browser.")
    ] = False,
    html_out: Annotated[
        Path | None,
        typer.Option(
            "--html", help="Write one self-contained HTML file instead of serving; - for stdout."
        ),
    ] = None,
    assets: AssetsOption = None,
) -> None:
    """Browse the slot tree, components, references, findings, textures and meshes.

    Serves a read-only page on 127.0.0.1 behind a random token in the URL, until Ctrl-C.
    Example: brson view avatar.resonitepackage;  brson view world.brson --html world.html
    """
    from brson.view import ViewData, ViewServer, check_installed, render_static, static_bundle

    check_output(html_out, src, option="--html")
    State.input = str(src)
    try:
        check_installed()
        data = ViewData.open(src, max_size=State.max_size, asset_dirs=assets or ())
        if html_out is not None:
            text = render_static(static_bundle(data), src.name)
            with outputs():
                write_atomic(html_out, text.encode())
            say(f"{html_out}: {len(text) // 1024} KiB, opens from disk")
            return
        server = ViewServer(data, port)
    except OSError as exc:
        raise BrsonError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}") from None
    except BrsonError as exc:
        raise exc.in_file(str(src)) from None
    data.start()
    stdout.print(f"brson view: {src} at {server.url}  (Ctrl-C to stop)", markup=False)
    if not no_browser:
        webbrowser.open(server.url)
    _stoppable()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        stderr.print("brson view: stopped", markup=False)
    finally:
        server.server_close()


def _stoppable() -> None:
    """Ctrl-C stops the server even when this process started with SIGINT ignored or blocked,
    as a child inherits both from its parent (a test runner, a supervisor): a server nothing
    but SIGKILL stops keeps its port and its thread running (seen in CI: the view test's
    SIGINT went unanswered in the full suite, never alone)."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
