"""Whether brson may use its compiled accelerators.

``BRSON_PURE_PYTHON`` set to anything but ``""`` or ``"0"`` forces every pure-Python path: CI
runs the tests of each accelerator both ways, and a user can rule out the C code when
chasing a bug.  Read once, here, at import, so that one process never mixes the two and
every module with an extension (``document.raw``, ``model.idscan``, ``graph.spans``,
``ops.validate.context``, ``godot.export``) answers by the same rule.
"""

from __future__ import annotations

import os

PURE_PYTHON: bool = os.environ.get("BRSON_PURE_PYTHON", "") not in ("", "0")
