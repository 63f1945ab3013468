"""``brson view``: a local, read-only web viewer of an archive (docs/view.md).

:mod:`brson.view.data` answers the page's questions from the model, the reference graph,
validation, the asset layer and the glTF exporter, and :mod:`brson.view.bundle` all of them at
once for ``--html``; :mod:`brson.view.server` serves them on
127.0.0.1 behind a random token; :mod:`brson.view.page` assembles the single page (bundled in
``brson/view/static``), linked for the server or self-contained for ``--html``.
"""

from brson.view.bundle import static_bundle
from brson.view.data import ViewData, ViewError
from brson.view.page import check_installed, render_static
from brson.view.server import ViewServer

__all__ = [
    "ViewData",
    "ViewError",
    "ViewServer",
    "check_installed",
    "render_static",
    "static_bundle",
]
