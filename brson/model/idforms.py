"""The shape of an element ID, stated once for every reader of IDs (the model's index and its
byte scan, the operations' ID scans, validate).

Resonite and NeosVR write IDs as GUID text (``00000017-0000-0000-0000-000000000000``; the
engine's allocation numbers the first group). Matching is by shape only: what an ID *means*
(which keys define one) is ``brson.model.ids``' rule.
"""

from __future__ import annotations

import re

#: The text of one ID (no anchors, no groups): for building larger patterns.
GUID_PATTERN = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
#: A whole string that is an ID.
GUID = re.compile(GUID_PATTERN + r"\Z")
