"""Bring data to Godot: the binary Variant codec (``var_to_bytes`` format) and its value types.

``dumps``/``loads`` take ``godot=3`` or ``godot=4`` because the two major versions number their
types differently and disagree on a few payloads (RID, null objects, typed containers).
"""

from brson.godot.values import *  # noqa: F403
from brson.godot.values import __all__ as _values_all
from brson.godot.variant import MAX_DEPTH, dumps, loads, loads_prefix

__all__ = ["MAX_DEPTH", "dumps", "loads", "loads_prefix", *_values_all]
