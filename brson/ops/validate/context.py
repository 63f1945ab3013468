"""What the rule families share during the one walk over a tree.

The walk (:mod:`brson.ops.validate.walk`) visits every slot and component once and decodes
each only once; the families look at the decoded values it hands them (:class:`SlotInfo`,
:class:`ComponentInfo`) and keep whatever state their whole-tree checks need until
:meth:`Family.finish`.  Paths are built only for findings, so a clean tree never pays for them.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from bson.code import Code
from bson.int64 import Int64

from brson._speedups import load
from brson.model import DataTree, Slot
from brson.model.ids.forms import DEFINING_KEY_SUFFIX, GUID_PATTERN, ID_KEY, holds_own_id, is_guid
from brson.model.ids.scan import IdCensus
from brson.model.typename import TypeName, is_type_name
from brson.ops.validate.findings import Findings

_GUID = GUID_PATTERN
#: GUIDs joined by newlines.
_GUIDS = re.compile(f"{_GUID}(?:\n{_GUID})*")
#: The same test as bytes compared after ``bytes.translate`` (four times faster than the
#: match over a slot's 60-odd IDs): every hex digit of :data:`GUID_PATTERN`'s class becomes
#: ``h``, ``-`` and the newline stay, anything else becomes ``?``; :data:`_SHAPES` is the
#: pattern's shape (its ``[0-9a-fA-F]{n}`` runs as ``h`` * n) repeated with newlines.
_HEX = b"0123456789abcdefABCDEF"
_TO_SHAPE = bytes(
    0x68 if b in _HEX else b if b in (0x2D, 0x0A) else 0x3F  # h, - and newline, ?
    for b in range(256)
)
_SHAPES = (
    re.sub(r"\[0-9a-fA-F\]\{(\d+)\}", lambda m: "h" * int(m[1]), GUID_PATTERN) + "\n"
).encode("ascii") * 512

#: One GUID's shape, what the compiled checks compare each mapped ID with.
_GUID_SHAPE = _SHAPES[: _SHAPES.index(b"\n")]
#: The GUID form the compiled checks are handed: (the class of each byte, one GUID's shape).
GUID_FORM = (_TO_SHAPE, _GUID_SHAPE)

if TYPE_CHECKING:
    from brson._speedups import _fieldsc
else:
    _fieldsc = load("_fieldsc")
ACCELERATED: bool = _fieldsc is not None
"""Whether :func:`all_guids` and :meth:`ComponentInfo.scan_all` run their compiled versions
(``brson/_speedups/_fieldsc.c``: the extension built and BRSON_PURE_PYTHON unset).  They
answer every input as the Python code below does (``tests/ops/test_fieldsc.py``), which
stays the reference and the path of anything C is unsure of."""


def is_int(value: object) -> bool:
    """An integer (int32 or Int64), not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


#: Each decoded type's kind in a message, subclasses before their bases (bool before int,
#: Code before str): the first that fits.
_KINDS: tuple[tuple[type, str], ...] = (
    (type(None), "null"),
    (bool, "a bool"),
    (Int64, "an int64"),
    (int, "an int32"),
    (float, "a double"),
    (Code, "JavaScript code"),
    (str, "a string"),
    (dict, "a document"),
    (list, "an array"),
)


def kind_of(value: object) -> str:
    """How a value reads in a message: its BSON-ish kind."""
    return next((kind for cls, kind in _KINDS if isinstance(value, cls)), type(value).__name__)


def all_guids(values: list[Any]) -> bool:
    """Whether every value is a GUID string, the lot in one call (a component's fields are
    checked together; per-value checks cost 10x more): the compiled loop, else
    :func:`all_guids_py`."""
    if ACCELERATED:
        return _fieldsc.guids(values, _TO_SHAPE, _GUID_SHAPE)
    return all_guids_py(values)


def all_guids_py(values: list[Any]) -> bool:
    """:func:`all_guids` in Python: the values joined, mapped to their shape and compared
    with the pattern's (only a lone GUID per value can give the joined shape: its length is
    37 per value, and the newlines the join adds are the only ones it allows)."""
    if not values:
        return True
    if not all(type(value) is str for value in values):
        return False  # JavaScript code is a str subclass spelling an ID, not one (is_guid)
    try:
        joined = "\n".join(values)
    except TypeError:  # a value that is not a string
        return False
    size = 37 * len(values) - 1
    if len(joined) != size:
        return False
    if size <= len(_SHAPES) and joined.isascii():
        return joined.encode("ascii").translate(_TO_SHAPE) == _SHAPES[:size]
    return _GUIDS.fullmatch(joined) is not None


def member_data(value: object) -> tuple[bool, Any]:
    """``(True, Data)`` when ``value`` is a member document, else ``(False, None)``."""
    if isinstance(value, dict) and "ID" in value:
        return True, value.get("Data")
    return False, None


class Context:
    """The tree under validation, its findings, and facts every family needs."""

    def __init__(self, tree: DataTree, findings: Findings) -> None:
        self.tree = tree
        self.findings = findings
        #: Report a finding: :meth:`Findings.add` itself.
        self.add = findings.add
        #: NeosVR generation: no ``Types`` table (component types are named inline).
        self.legacy = "Types" not in tree
        names = tree.get("Types") if not self.legacy else None
        #: False when ``Types`` is there but not a list of strings (BR202 says so; indices
        #: into it are then not checked one by one).
        self.types_ok = self.legacy or (
            isinstance(names, list) and all(is_type_name(n) for n in names)
        )
        #: The Types table (empty for NeosVR files and when it is malformed).
        self.type_names: list[str] = names if self.types_ok and names is not None else []
        #: The tree's IDs counted from its bytes, when the reference rules could (set before
        #: the walk): its ``defined_values`` are the only IDs a reference can resolve to, so
        #: a family need keep no other ID it meets for later lookups.
        self.census: IdCensus | None = None

    def referenced(self, element_id: str) -> bool:
        """Whether some reference may name ``element_id`` (always, without a census)."""
        return self.census is None or element_id in self.census.defined_values

    def type_label(self, raw_type: object) -> str:
        """A component's short type name for paths; ``#index``/``?`` when it has none."""
        if is_int(raw_type):
            index = int(raw_type)  # type: ignore[call-overload]
            if 0 <= index < len(self.type_names):
                return TypeName.parse(self.type_names[index]).name
            return f"#{index}"
        if isinstance(raw_type, str) and is_type_name(raw_type) and raw_type:
            return TypeName.parse(raw_type).name
        return "?"


class SlotInfo:
    """A slot and the decoded values of its own keys (not ``Children``/``Components``)."""

    __slots__ = ("fields", "slot")

    def __init__(self, slot: Slot, fields: dict[str, Any]) -> None:
        self.slot = slot
        self.fields = fields

    @property
    def path(self) -> str:
        return self.slot.display_path()


def _fields(data: dict[str, Any]) -> tuple[list[str], list[Any]]:
    """``(keys that are not members, the IDs: of members, and under the keys that hold the
    component's own IDs (:func:`~brson.model.ids.forms.holds_own_id`))``."""
    odd: list[str] = []
    ids: list[Any] = []
    for key, value in data.items():
        if type(value) is dict:
            if ID_KEY in value:
                ids.append(value[ID_KEY])
            else:
                odd.append(key)
        elif holds_own_id(key):
            if value is not None:
                ids.append(value)
        else:
            odd.append(key)
    return odd, ids


class ComponentInfo:
    """A component (on a slot, or in the root ``Assets`` when ``slot`` is None), decoded."""

    __slots__ = ("ctx", "data", "doc", "scanned", "slot")

    def __init__(self, ctx: Context, doc: dict[str, Any], slot: Slot | None) -> None:
        self.ctx = ctx
        self.doc = doc
        self.slot = slot
        data = doc.get("Data")
        #: The component's ``Data`` (empty when it is not a document: BR206 says so).
        self.data: dict[str, Any] = data if type(data) is dict else {}
        #: What :meth:`scan_fields` found (None until it ran, or :meth:`scan_all` for it).
        self.scanned: tuple[list[str], list[tuple[str, object]]] | None = None

    def scan_fields(self) -> tuple[list[str], list[tuple[str, object]]]:
        """``(keys that are not members, (what, value) of IDs that are not GUIDs)`` over
        ``Data``, in one pass shared by the families (this is the per-field hot loop)."""
        if self.scanned is not None:
            return self.scanned
        odd, ids = _fields(self.data)
        bad: list[tuple[str, object]] = []
        if not all_guids(ids):
            for key, value in self.data.items():
                if type(value) is dict and ID_KEY in value:
                    if not is_guid(value[ID_KEY]):
                        bad.append((f"{key} member ID", value[ID_KEY]))
                elif holds_own_id(key) and value is not None and not is_guid(value):
                    bad.append(("component ID" if key == ID_KEY else key, value))
        self.scanned = (odd, bad)
        return self.scanned

    @staticmethod
    def scan_all(infos: list[ComponentInfo]) -> None:
        """:meth:`scan_fields` for a slot's components at once: one match for all their IDs
        (a match per component cost as much as the loop over their fields); when some ID is
        not a GUID, each component finds which on its own."""
        if ACCELERATED:
            odds = _fieldsc.scan_all(
                [info.data for info in infos], _TO_SHAPE, _GUID_SHAPE, ID_KEY, DEFINING_KEY_SUFFIX
            )
            if odds is not None:
                for info, odd in zip(infos, odds, strict=True):
                    info.scanned = (odd, [])
                return
        ComponentInfo.scan_all_py(infos)

    @staticmethod
    def scan_all_py(infos: list[ComponentInfo]) -> None:
        """:meth:`scan_all` in Python (the compiled one's reference, and its path whenever
        some ID is not a GUID)."""
        scans = [_fields(info.data) for info in infos]
        if all_guids_py([element_id for _, ids in scans for element_id in ids]):
            for info, (odd, _) in zip(infos, scans, strict=True):
                info.scanned = (odd, [])

    @property
    def id(self) -> str | None:
        value = self.data.get("ID")
        return value if isinstance(value, str) else None

    @property
    def path(self) -> str:
        head = self.slot.display_path() if self.slot is not None else "<Assets>"
        return f"{head}:{self.ctx.type_label(self.doc.get('Type'))}"


class Family:
    """One family of rules; the walk calls these hooks, each a no-op unless overridden."""

    def root(self, ctx: Context) -> None:
        """Before the walk: the root document's keys."""

    def slot(self, ctx: Context, info: SlotInfo) -> None:
        """Every slot, parents before children."""

    def component(self, ctx: Context, info: ComponentInfo) -> None:
        """Every component, after its slot; then the root ``Assets``."""

    def finish(self, ctx: Context) -> None:
        """After the walk: checks over the whole tree."""
