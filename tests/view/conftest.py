"""Fixtures for the viewer's tests: a server on a real sample in a thread, and Debian's
Chromium driven by Playwright for Python (its own browser download needs the open internet,
so ``executable_path`` points at the system browser).  Without Chromium the browser tests skip
(in CI a skip fails: tests/conftest.py); `make test` installs it (scripts/ensure-apt.sh).
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from brson.view import ViewData, ViewServer
from tests.conftest import FIXTURES

#: The demo package: a texture (StaticTexture2D), a quad mesh and a material, 36 slots.
STANDIN = FIXTURES / "demo" / "orange3134_loading_standin.resonitepackage"
#: Flags for a headless Chromium on a closed network without a GPU (SwiftShader's WebGL).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--use-gl=angle",
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
]


def chromium_path() -> str | None:
    return os.environ.get("BRSON_CHROMIUM") or shutil.which("chromium")


class Running:
    """A viewer server on one file, serving from a daemon thread."""

    def __init__(self, path: Path) -> None:
        self.data = ViewData.open(path)
        self.server = ViewServer(self.data)
        self.data.start()
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.port}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="session")
def standin_server() -> Iterator[Running]:
    running = Running(STANDIN)
    yield running
    running.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    path = chromium_path()
    if path is None:
        pytest.skip("chromium not installed (apt-get install chromium; make test does it)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright missing: pip install -e '.[test]'")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the browser tests save their screenshots: ``$BRSON_VIEW_SCREENSHOTS`` (kept, for
    CI artifacts), else a pytest temporary folder (test_tree_renders prints it)."""
    chosen = os.environ.get("BRSON_VIEW_SCREENSHOTS")
    if chosen:
        Path(chosen).mkdir(parents=True, exist_ok=True)
        return Path(chosen)
    return tmp_path_factory.mktemp("view-screenshots")


class Page:
    """A Playwright page that records console errors and failed requests."""

    def __init__(self, browser: Any) -> None:
        self.context = browser.new_context(viewport={"width": 1400, "height": 860})
        self.page = self.context.new_page()
        # The page's CSS animations (a selection's 1.2 s flash) at ten times their speed, by
        # DevTools' playback rate, not by the page: every frame of them costs Chromium's
        # processes CPU (about 0.08 s a selection), and no test looks at their frames.
        self.devtools = self.context.new_cdp_session(self.page)
        self.devtools.send("Animation.enable")
        self.devtools.send("Animation.setPlaybackRate", {"playbackRate": 10})
        self.errors: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("requestfailed", lambda r: self.errors.append(f"failed: {r.url} {r.failure}"))

    def close(self) -> None:
        self.context.close()


@pytest.fixture(scope="module")
def _shared_page(browser: Any) -> Iterator[Page]:
    made = Page(browser)
    yield made
    made.close()


@pytest.fixture
def page(_shared_page: Page) -> Page:
    """One tab for the module (a new browser context per test cost about a fifth of
    test_browser's CPU); a test that opens its own URL (``goto``: the page keeps nothing in
    storage) starts with no errors recorded, and leaves for ``about:blank`` before it stops its
    server."""
    _shared_page.errors.clear()
    return _shared_page
