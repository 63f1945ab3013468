"""The single page, from the package's static files: linked to the server's URLs in server
mode, or with the scripts, styles and data inlined for ``--html`` (opens from ``file://``)."""

from __future__ import annotations

import html
import json
from functools import cache
from importlib import resources
from typing import Any

from brson.view.data import ViewError

#: The three.js bundle: committed and shipped as package data (no npm at install time);
#: ``make vendor`` (scripts/vendor-three.sh) rebuilds it from the npm lockfile.
VENDOR = "vendor/three.bundle.min.js"
#: The static export's policy: inline code only, and no network at all.
STATIC_CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data: blob:; connect-src blob:; base-uri 'none'; form-action 'none'"
)


@cache
def static_file(name: str) -> bytes:
    """A file of ``brson/view/static`` (a fixed name, never one from a request)."""
    path = resources.files("brson.view").joinpath("static", *name.split("/"))
    try:
        return path.read_bytes()
    except FileNotFoundError:
        if name == VENDOR:
            raise ViewError(
                "the viewer's three.js bundle (brson/view/static/vendor/three.bundle.min.js) "
                "is missing from this install: reinstall brson (in a checkout: `make vendor`, "
                "needs npm)"
            ) from None
        raise ViewError(f"the viewer's {name} is missing from the package") from None


def check_installed() -> None:
    """Fail early, with one line, when the page cannot be served."""
    for name in ("index.html", "app.js", "app.css", VENDOR):
        static_file(name)


def _template() -> str:
    return static_file("index.html").decode()


def render_server(token: str) -> str:
    """The page as the server sends it: scripts and styles by URL, with the token."""
    q = f"?token={token}"
    head = f'<link rel="stylesheet" href="/static/app.css{q}">'
    scripts = (
        f'<script src="/static/vendor/three.bundle.min.js{q}"></script>\n'
        f'<script src="/static/app.js{q}"></script>'
    )
    return (
        _template()
        .replace("<!--HEAD-->", head)
        .replace("<!--SCRIPTS-->", scripts)
        .replace("<!--MODE-->", f'data-mode="server" data-token="{html.escape(token)}"')
        .replace("<!--TITLE-->", "brson view")
    )


def _inline_script(code: bytes) -> str:
    """Script text safe inside ``<script>``: no ``</script`` or ``<!--`` can end it early."""
    text = code.decode()
    return text.replace("</script", "<\\/script").replace("<!--", "<\\!--")


def inline_json(value: Any) -> str:
    """JSON safe inside ``<script type="application/json">`` (``<``, ``>``, ``&`` and the
    line separators JavaScript once took for line ends, escaped)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for char, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, escaped)
    return text


def render_static(bundle: dict[str, Any], title: str) -> str:
    """The self-contained page: styles, three.js, the app and every answer inlined."""
    head = (
        f'<meta http-equiv="Content-Security-Policy" content="{STATIC_CSP}">\n'
        f"<style>{static_file('app.css').decode()}</style>"
    )
    scripts = (
        f'<script type="application/json" id="brson-data">{inline_json(bundle)}</script>\n'
        f"<script>{_inline_script(static_file(VENDOR))}</script>\n"
        f"<script>{_inline_script(static_file('app.js'))}</script>"
    )
    return (
        _template()
        .replace("<!--HEAD-->", head)
        .replace("<!--SCRIPTS-->", scripts)
        .replace("<!--MODE-->", 'data-mode="static"')
        .replace("<!--TITLE-->", html.escape(f"{title} - brson view"))
    )
