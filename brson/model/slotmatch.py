"""How a selector's text names slots: the rule :meth:`DataTree.find_all` applies, tier by tier.

Resonite names are rich text (``<color=#FF0000>Check Avatar Worn</color> - (11 Nodes)``) and
the root's name rarely helps (``Holder``), so a selector that names nothing exactly is tried
again without the tags, as a path below the root, and as the start of an ID.  The first tier
that matches decides; a tier matching several slots is an ambiguity, never a pick.  The seven
tiers are docs/editing.md's ("Selectors").  Each tier is one walk of the tree or a descent
along the path: a lookup costs the tree's size plus its names, once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from brson.model.slot import Slot

#: Rich-text tags of Resonite's text renderer (TextMeshPro's set): opening with an optional
#: ``=value`` or attributes, closing, and the ``<#rrggbb>`` colour shorthand.  Only these are
#: removed: ``ValueInput<float>`` is a name, not markup.
RICH_TEXT = re.compile(
    r"</?(?:align|allcaps|alpha|b|br|color|cspace|font|font-weight|gradient|i|indent"
    r"|line-height|line-indent|link|lowercase|margin|margin-left|margin-right|mark|mspace"
    r"|nobr|noparse|page|pos|rotate|s|size|smallcaps|space|sprite|strikethrough|style|sub"
    r"|sup|u|uppercase|voffset|width)(?![\w-])[^<>]*>"
    r"|<#[0-9a-fA-F]{3,8}>",
    re.IGNORECASE,
)

_ID_PREFIX = re.compile(r"(?=[^\d]*\d)[0-9a-fA-F-]{4,36}\Z")


def plain(name: str) -> str:
    """A name as it shows: rich-text tags removed, outer spaces trimmed."""
    return RICH_TEXT.sub("", name).strip() if "<" in name else name.strip()


def _name(slot: Slot) -> str:
    name = slot.name
    return name if isinstance(name, str) else ""


def _plain_name(slot: Slot) -> str:
    return plain(_name(slot))


def along_path(
    starts: Iterable[Slot], path: str, text: Callable[[Slot], str] = _name
) -> list[Slot]:
    """Slots whose names from one of ``starts`` down, as ``text`` reads them and joined by
    ``/``, spell ``path``; in walk order.  Only slots whose joined names are a prefix of the
    path are entered, so a lookup costs the slots along it, not every slot's whole path (one
    path per slot was O(slots x depth): seconds and gigabytes on a deep tree of long names)."""
    found: list[Slot] = []
    stack: list[tuple[Slot, int]] = [(slot, 0) for slot in reversed(list(starts))]
    while stack:
        slot, at = stack.pop()
        name = text(slot)
        if not path.startswith(name, at):
            continue
        end = at + len(name)
        if end == len(path):
            found.append(slot)
        if end < len(path) and path[end] == "/":
            stack.extend((child, end + 1) for child in reversed(slot.children))
    return found


def loose_matches(root: Slot, selector: str) -> list[Slot]:
    """The slots of the first loose tier (4 to 7 above) that ``selector`` matches; empty
    when none does.  The exact tiers (1 to 3) are the caller's."""
    wanted = plain(selector)
    by_plain: list[Slot] = []
    by_id: list[Slot] = []
    prefix = selector.lower() if _ID_PREFIX.match(selector) else None
    for slot in root.walk():  # tiers 4 and 7 in one walk
        if wanted and _plain_name(slot) == wanted:
            by_plain.append(slot)
        if prefix is not None:
            element_id = slot.id
            if isinstance(element_id, str) and element_id.lower().startswith(prefix):
                by_id.append(slot)
    if by_plain:
        return by_plain
    below = root.children
    found = along_path(below, selector)
    if not found and "/" in selector:
        found = along_path([root], wanted, _plain_name) or along_path(below, wanted, _plain_name)
    return found or by_id
