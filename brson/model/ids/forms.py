"""IDs in the data tree, stated once for every reader of IDs (the model's index and its byte
scan, the graph, the operations' ID scans, diff, validate): the shape of an ID, which keys
define one, and the BSON elements that hold them, as patterns over the document's bytes.

Resonite and NeosVR write IDs as GUID text (``00000017-0000-0000-0000-000000000000``; the
engine's allocation numbers the first group). The byte patterns match the BSON bytes read as
latin-1 text (one character a byte, so match offsets are byte offsets): a string element is
type ``0x02``, the key, NUL, the int32 length 37 (36 characters and the NUL), the text, NUL.
"""

from __future__ import annotations

import re

#: The text of one ID (no anchors, no groups): for building larger patterns.
GUID_PATTERN = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
#: A whole string that is an ID.
GUID = re.compile(GUID_PATTERN + r"\Z")


def is_guid(value: object) -> bool:
    """ID-shaped: how references are recognised (there is no type tag in the format).  Only a
    BSON string is: JavaScript code (0x0D) decodes to a ``str`` subclass that spells the same
    text but is no ID to the engine (and cannot key a dict)."""
    return type(value) is str and len(value) == 36 and GUID.match(value) is not None


#: The key of the ID a document defines for itself (every slot, component and member).
ID_KEY = "ID"
#: The keys that define the ID they hold, whole: ``ID`` and ``ParentReference`` (which in
#: engine files names the slot's own parent link).
DEFINING_KEY_NAMES = (ID_KEY, "ParentReference")
#: The end of every other defining key (``persistent-ID``, ``_shader-ID``…).
DEFINING_KEY_SUFFIX = "-ID"


def defines_id(key: str) -> bool:
    """Whether an element with this key defines the ID it holds; every other ID-shaped value
    is a reference."""
    return key in DEFINING_KEY_NAMES or key.endswith(DEFINING_KEY_SUFFIX)


def holds_own_id(key: str) -> bool:
    """Whether a component field with this key (not a member) holds an ID of the
    component's own: its ``ID`` and every ``-ID`` key; ``ParentReference`` is a slot's.
    validate checks these are GUIDs (its compiled loop, ``_fieldsc.c``, is handed
    :data:`ID_KEY` and :data:`DEFINING_KEY_SUFFIX` to test the same)."""
    return key == ID_KEY or key.endswith(DEFINING_KEY_SUFFIX)


#: Between an element's key and its ID text: the key's NUL and the string length 37.
ID_VALUE_PREFIX = "\x00\x25\x00\x00\x00"
#: The keys :func:`defines_id` accepts, as a pattern over the element bytes (a group).
DEFINING_KEYS = f"({'|'.join(DEFINING_KEY_NAMES)}|[\x20-\x7e]{{0,62}}{DEFINING_KEY_SUFFIX})"
#: The start of an ``ID`` element (what every slot, component and member document holds).
ID_HEAD = ("\x02ID" + ID_VALUE_PREFIX).encode("latin-1")


def leading_id(buf: bytes, start: int, end: int) -> str | None:
    """The ID a document at ``buf[start:end]`` holds as its first element, where the engine
    writes it (a component's ``Data``, a slot, a member), read without indexing the
    document; None for any other layout (the caller indexes it then)."""
    at = start + 4 + len(ID_HEAD)
    if at + 36 < end and buf.startswith(ID_HEAD, start + 4) and buf[at + 36] == 0:
        text = buf[at : at + 36]
        if text.isascii():
            return text.decode("ascii")
    return None


#: A string element defining an ID: groups (key, ID).
DEFINITION = re.compile("\x02" + DEFINING_KEYS + ID_VALUE_PREFIX + f"({GUID_PATTERN})\x00")
DEFINITION_BYTES = re.compile(DEFINITION.pattern.encode("latin-1"))
#: Every other string element holding an ID-shaped value (a candidate reference): (key, ID).
REFERENCE = re.compile(
    "\x02(?!ID\x00|ParentReference\x00)([\x20-\x7e]{1,64})(?<!-ID)"
    + ID_VALUE_PREFIX
    + f"({GUID_PATTERN})\x00"
)
#: :data:`REFERENCE` over bytes (match offsets are byte offsets either way).
REFERENCE_BYTES = re.compile(REFERENCE.pattern.encode("latin-1"))
#: ``ParentReference`` elements: (ID).
PARENT_REFERENCE = re.compile("\x02ParentReference" + ID_VALUE_PREFIX + f"({GUID_PATTERN})\x00")
#: Any string element with an ID-shaped value: (key, ID).
ID_ELEMENT = re.compile("\x02([\x20-\x7e]{1,64})" + ID_VALUE_PREFIX + f"({GUID_PATTERN})\x00")
#: An ID-shaped string value wherever it is: (ID); and the same as a split point.
ID_VALUE = re.compile(ID_VALUE_PREFIX + f"({GUID_PATTERN})\x00")
ID_VALUE_SPLIT = re.compile(f"(?<={ID_VALUE_PREFIX})({GUID_PATTERN})(?=\x00)")

#: The sequential style the engine allocates: .NET's Guid text of a little-endian 64-bit
#: counter (low 32 bits, next 16, top 16; the last 8 bytes zero), lower case as .NET prints it.
#: Its fixed end (the counter's last 8 bytes, zero): the compiled fragment scan
#: (``_idscanc.elements``) reads the shape from here and the lower-case hex of the groups.
SEQUENTIAL_TAIL = "-0000-000000000000"
SEQUENTIAL = re.compile("([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})" + SEQUENTIAL_TAIL)
#: Definitions not in the sequential style (a random-ID file, NeosVR).
RANDOM_DEFINITION = re.compile(
    "\x02"
    + DEFINING_KEYS
    + ID_VALUE_PREFIX
    + "(?![0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}"
    + SEQUENTIAL_TAIL
    + "\x00)"
    + GUID_PATTERN
    + "\x00"
)
#: Sequential values with a counter past 2**32, and the low group of the others.
WIDE_SEQUENTIAL = re.compile(
    ID_VALUE_PREFIX + "[0-9a-f]{8}-(?!0000-0000-)[0-9a-f]{4}-[0-9a-f]{4}" + SEQUENTIAL_TAIL + "\x00"
)
NARROW_SEQUENTIAL = re.compile(
    ID_VALUE_PREFIX + "([0-9a-f]{8})-0000-0000" + SEQUENTIAL_TAIL + "\x00"
)
#: The ID of every element :data:`DEFINITION` matches, alone (one group: ``findall`` lists
#: the IDs themselves, in byte order, without a tuple each).
DEFINED_ID_BYTES = re.compile(
    (
        "\x02(?:" + DEFINING_KEYS.removeprefix("(") + ID_VALUE_PREFIX + f"({GUID_PATTERN})\x00"
    ).encode("latin-1")
)
