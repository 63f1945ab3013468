"""What the viewer's page asks about an archive, answered from the model, the reference graph,
validation, the asset layer and the glTF exporter (nothing here knows about HTTP).

Slots are addressed by *keys*: the child indexes from the root joined by dots (``0`` is the
root, ``0.2.5`` its third child's sixth child).  A key needs no ID (hostile files have slots
without one, or with a duplicate), is the same in every copy of the tree, and finds its slot
by one descent, so the page can load any part of a huge world without the whole of it.

Everything that needs the whole tree (the search index, the reference graph that resolves
links and lists who points at a slot, the findings, the map from paths to keys) is built by
:class:`Index` on a *separate copy* of the tree in a worker thread: the model indexes its bytes
lazily and caches nodes by identity, which is not safe to share between threads, and the copy
keeps the page's own requests (children, details) from waiting for it.  The two trees share
the file's bytes; the price is their separate nodes and indexes (docs/view.md has the figures).
"""

from __future__ import annotations

import itertools
import math
import os
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from brson import api
from brson.assets.kinds import IMAGE_KINDS, identify
from brson.assets.store import AssetStore, parse_url
from brson.codecs import limits
from brson.container import is_package_name
from brson.errors import BrsonError, ModelError
from brson.graph import ReferenceGraph
from brson.graph.refs import KINDS
from brson.model import Component, DataTree
from brson.model.ids.forms import GUID
from brson.model.slot import SLOT_MEMBERS, Slot
from brson.ops.validate import validate
from brson.package import Package, load_package

#: Children listed per request; a slot with more gets "more" pages (flat worlds exist).
PAGE = 500
#: Summaries a reveal answers with at most, besides the one on the path at each level.
REVEAL_LIMIT = 5000
#: Search results returned at most (the total is reported too).
SEARCH_LIMIT = 200
#: Incoming references listed per element at most.
INCOMING_LIMIT = 200
#: Findings listed at most (the counts are exact).
FINDINGS_LIMIT = 2000
#: Slots the viewport's GLB takes at most (10,000 slots export in about a second).
GLB_LIMIT = 20_000
#: Image kinds a browser shows as they are; other images are converted to PNG (Pillow).
BROWSER_IMAGES = {
    "png": "image/png",
    "jpeg": "image/jpeg",
    "webp": "image/webp",
    "gif": "image/gif",
}
#: A text value that reads as an enum member: one identifier (``Repeat``, ``Bilinear``).
_ENUM = re.compile(r"[A-Z][A-Za-z0-9_]*\Z")
#: Fields whose text is free text even when it looks like one identifier.
_TEXT_FIELDS = {"Name", "Tag", "Text", "Content", "Value", "Path", "VariableName", "Label"}
_COLOR_PROFILES = {"sRGB", "Linear", "sRGBAlpha"}


class ViewError(BrsonError):
    """A request the viewer cannot answer (an unknown slot key, a missing asset)."""

    layer = "view"


def key_path(key: str) -> list[int]:
    """The child indexes of a key; a ViewError for anything but ``0`` and dotted indexes."""
    parts = key.split(".")
    if parts[0] != "0" or not all(p.isdigit() and len(p) < 10 for p in parts[1:]):
        raise ViewError(f"not a slot key: {key[:40]!r}")
    return [int(p) for p in parts[1:]]


def quaternion_euler(q: list[float]) -> list[float]:
    """Euler angles in degrees (x, y, z) of a quaternion (x, y, z, w), in the engine's order
    (Unity's: z, then x, then y), as its inspector shows a floatQ."""
    x, y, z, w = q
    sinx = max(-1.0, min(1.0, 2.0 * (w * x - y * z)))
    ex = math.asin(sinx)
    ey = math.atan2(2.0 * (w * y + x * z), 1.0 - 2.0 * (x * x + y * y))
    ez = math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (x * x + z * z))
    return [round(math.degrees(a), 4) for a in (ex, ey, ez)]


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _json_number(value: float | int) -> float | int | str:
    """JSON has no NaN or infinity: those are sent as text."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    return value


def _slot_name(slot: Slot) -> str:
    name = slot.name
    return name if isinstance(name, str) else ""


def _type_text(component: Component) -> tuple[str, str]:
    """(full type text, short name) of a component, or its raw ``Type`` when it names none."""
    try:
        kind = component.type
    except ModelError:
        raw = repr(component.type_index)
        return raw, raw
    return str(kind), kind.name


@dataclass
class Entry:
    """One slot in the search index (built on the worker's copy of the tree)."""

    key: str
    name: str
    id: str
    types: str  # every component's type text and short name, lower case, newline-separated


class Index:
    """The whole-tree facts, built once in a worker thread on its own copy of the tree (see
    the module docstring), in stages the page uses as each is ready (an event each): the
    search entries, then the references' targets (links resolve), then their sources
    (referenced-by), then the findings."""

    def __init__(self) -> None:
        self.tree: DataTree | None = None
        self.entries: list[Entry] = []
        #: Slot (by identity, in the copy) -> key, for every slot, and back.
        self.keys: dict[int, str] = {}
        self.slots: dict[str, Slot] = {}
        self.by_path: dict[str, str] = {}
        self.by_id: dict[str, str] = {}
        self.graph: ReferenceGraph | None = None
        #: Findings as sent to the page, each with the key of its slot when one is found.
        self.findings: list[dict[str, Any]] = []
        self.counts: dict[str, int] = {}
        self.by_key: dict[str, int] = {}  # findings per slot key
        self.listed: dict[str, list[dict[str, Any]]] = {}  # the listed findings by key
        self.error: str | None = None
        self.lock = threading.Lock()  # the copy is read by one thread at a time
        self.entries_ready = threading.Event()
        self.targets_ready = threading.Event()
        self.refs_ready = threading.Event()
        self.findings_ready = threading.Event()

    def build(self, load: Callable[[], DataTree]) -> None:
        """All the stages; a failure is recorded (the page shows it) and ends the build."""
        try:
            with self.lock:
                self.tree = load()
                self._entries(self.tree)
            self.entries_ready.set()
            # References and targets located now, in bulk, in this thread: done on first use
            # instead, each pass would fall on one of the page's requests (seconds on a huge
            # world).  Targets first (the inspector's links), then sources (referenced-by).
            with self.lock:
                graph = ReferenceGraph.build(self.tree)
                graph.locate_targets()
                self.graph = graph
            self.targets_ready.set()
            with self.lock:
                graph.locate_all()
                graph.references_to("")  # and the by-target table
            self.refs_ready.set()
            with self.lock:
                self._findings(self.tree)
        except Exception as exc:  # a damaged file: the tree itself still shows
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            self.entries_ready.set()
            self.targets_ready.set()
            self.refs_ready.set()
            self.findings_ready.set()

    def _entries(self, tree: DataTree) -> None:
        """One walk: every slot's key, name, ID and component types.  Component IDs are not
        collected (indexing each component's Data costs most of the walk); a whole ID of any
        element is found through the ID index instead (:meth:`ViewData.search`)."""
        # By raw Type (an index in Resonite files, a name in NeosVR ones), typed so that a
        # hostile ``True`` is not taken for index 1.
        type_texts: dict[tuple[type, object], str] = {}
        for key, slot in walk_keys(tree.root):
            self.keys[id(slot)] = key
            self.slots[key] = slot
            types: list[str] = []
            for comp in slot.components:
                raw_type = comp.type_index
                cache_key = (type(raw_type), raw_type)
                text = type_texts.get(cache_key) if type(raw_type) in (int, str) else None
                if text is None:
                    full, short = _type_text(comp)
                    text = f"{full.lower()}\n{short.lower()}"
                    if type(raw_type) in (int, str):
                        type_texts[cache_key] = text
                types.append(text)
            sid = slot.id or ""
            if sid:
                self.by_id.setdefault(sid, key)
            # Findings name slots by their bounded display path; a full path would cost
            # depth characters a slot, quadratic in a deep chain.
            self.by_path.setdefault(slot.display_path(), key)
            self.entries.append(Entry(key, _slot_name(slot), sid, "\n".join(types)))

    def _findings(self, tree: DataTree) -> None:
        """Validation's findings, each mapped to a slot key by the element it names, else by
        the longest slot path its ``path`` starts with."""
        counts = {"error": 0, "warning": 0, "info": 0}
        for finding in validate(tree):
            counts[str(finding.severity)] = counts.get(str(finding.severity), 0) + 1
            where = self.by_id.get(finding.element) if finding.element else None
            if where is None and finding.path:
                where = _key_for_path(finding.path, self.by_path)
            if where is not None:
                self.by_key[where] = self.by_key.get(where, 0) + 1
            if len(self.findings) < FINDINGS_LIMIT:
                listed = {
                    "code": finding.code,
                    "severity": str(finding.severity),
                    "message": finding.message,
                    "path": finding.path,
                    "key": where,
                }
                self.findings.append(listed)
                if where is not None:
                    self.listed.setdefault(where, []).append(listed)
        self.counts = counts

    def slot(self, key: str) -> Slot | None:
        """The copy's slot with this key (None past the tree)."""
        if self.tree is None:
            return None
        return self.slots.get(key)  # None for what is no key of this tree

    def target(self, element_id: str) -> dict[str, Any] | None:
        """Where an ID points: its slot's key, the component index, the field name."""
        graph = self.graph
        if graph is None:
            return None
        element = graph.element(element_id)
        if element is None:
            return None
        location = graph.where(element_id)
        anchor = location.anchor if location is not None else None
        slot = anchor.slot if isinstance(anchor, Component) else anchor
        member = None
        if location is not None and isinstance(anchor, Component):
            names = [p for p in location.path if isinstance(p, str) and p not in ("Data", "ID")]
            member = names[0] if names else None
        return {
            "kind": KINDS[type(element)],
            "key": self.keys.get(id(slot)) if slot is not None else None,
            "component": _component_index(anchor),
            "member": member,
            "label": location.describe() if location is not None else element_id,
        }

    def incoming(self, key: str) -> list[dict[str, Any]]:
        """References from anywhere in the file to this slot and its components."""
        graph, slot = self.graph, self.slot(key)
        if graph is None or slot is None:
            return []
        targets: list[tuple[str, str | None]] = [("slot", slot.id)]
        targets += [(_type_text(c)[1], _component_id(c)) for c in slot.components]
        out: list[dict[str, Any]] = []
        for what, element_id in targets:
            if element_id is None:
                continue
            for ref in graph.references_to(element_id)[:INCOMING_LIMIT]:
                source = ref.slot
                out.append(
                    {
                        "to": what,
                        "from": ref.describe(),
                        "key": self.keys.get(id(source)) if source is not None else None,
                        "component": _component_index(ref.location.anchor),
                    }
                )
        return out


def _component_id(component: Component) -> str | None:
    """A component's ID; None when it has none, or no Data at all (a damaged file: the
    inspector still shows the component, with the error in place of its fields)."""
    try:
        return component.id
    except ModelError:
        return None


def _component_index(anchor: object) -> int | None:
    if isinstance(anchor, Component) and anchor.slot is not None:
        for i, comp in enumerate(anchor.slot.components):
            if comp is anchor:
                return i
    return None


def walk_keys(root: Slot) -> Iterator[tuple[str, Slot]]:
    """Every slot with its key, depth-first, parents first (iterative: trees are deep)."""
    stack: list[tuple[str, Slot]] = [("0", root)]
    while stack:
        key, slot = stack.pop()
        yield key, slot
        kids = slot.children
        for i in range(len(kids) - 1, -1, -1):
            stack.append((f"{key}.{i}", kids[i]))


def _key_for_path(path: str, by_path: dict[str, str]) -> str | None:
    """The slot key of a finding's path (``Root/Body:MeshRenderer.Materials[0]``): the whole
    path, else each prefix before a ``:`` from the right (names may hold colons)."""
    text = path
    while True:
        if text in by_path:
            return by_path[text]
        cut = text.rfind(":")
        if cut < 0:
            return None
        text = text[:cut]


class ViewData:
    """An opened archive, as the page sees it.  ``tree`` is used under ``lock`` only; the
    index is built from ``load_copy()`` (another tree of the same file) by :meth:`start`."""

    def __init__(
        self,
        name: str,
        tree: DataTree,
        package: Package | None,
        load_copy: Callable[[], DataTree],
        assets: AssetStore | None = None,
        file_bytes: int = 0,
    ) -> None:
        self.name = name
        self.file_bytes = file_bytes
        self.tree = tree
        self.package = package
        self.assets = assets or AssetStore(package)
        self.lock = threading.RLock()
        self._load_copy = load_copy
        self.index = Index()
        self._glb: dict[str, bytes] = {}
        self._flux: dict[str, Any] | None = None

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        max_size: int = limits.DEFAULT_MAX_SIZE,
        asset_dirs: Iterable[str | os.PathLike[str]] = (),
    ) -> ViewData:
        """An archive or package file, read now (errors are raised here, before serving)."""
        name = os.fspath(path)

        def load() -> tuple[DataTree, Package | None]:
            if is_package_name(name):
                package = load_package(name, max_size=max_size)
                return package.tree, package
            return api.load(name, max_size=max_size), None

        tree, package = load()
        tree.types  # noqa: B018  (a malformed type table is reported now, against this file)

        def copy() -> DataTree:
            """Another tree over the same bytes: ``bytes`` are immutable, so the two trees
            share them (an unmodified tree's ``to_bson`` is its buffer, not a copy) and only
            their lazily built nodes and indexes are separate."""
            return DataTree(tree.to_bson(), tree.container, tree.source)

        return cls(
            os.path.basename(name),
            tree,
            package,
            copy,
            AssetStore(package, asset_dirs),
            file_bytes=os.path.getsize(name),
        )

    # -- the index, built in the background ---------------------------------------------
    def start(self) -> None:
        """Build the index in a daemon thread (the server answers meanwhile)."""
        threading.Thread(
            target=self.index.build, args=(self._load_copy,), name="brson-view-index", daemon=True
        ).start()

    def build_now(self) -> None:
        """Build the index in this thread (the static export)."""
        if not self.index.findings_ready.is_set():
            self.index.build(self._load_copy)

    def flux(self) -> dict[str, Any]:
        """The ProtoFlux graph pane's nodes and connections (:mod:`brson.view.fluxpane`)."""
        if self._flux is None:
            from brson.view.fluxpane import flux_answer

            self._flux = flux_answer(self.tree)
        return self._flux

    # -- slots by key ---------------------------------------------------------------------
    def slot(self, key: str) -> Slot:
        slot = self.tree.root
        for depth, i in enumerate(key_path(key)):
            kids = slot.children
            if i >= len(kids):
                parent = ".".join(key.split(".")[: depth + 1])
                raise ViewError(f"no slot {key}: slot {parent} has {len(kids)} children")
            slot = kids[i]
        return slot

    # -- answers --------------------------------------------------------------------------
    def info(self) -> dict[str, Any]:
        tree = self.tree
        root = tree.root
        return {
            "file": self.name,
            "generation": "NeosVR" if tree.legacy else "Resonite",
            "version": tree.version_number,
            "types": len(tree.types),
            "file_bytes": self.file_bytes,
            "package_assets": len(self.package.assets) if self.package is not None else 0,
            "root": self.summary("0", root),
        }

    def summary(self, key: str, slot: Slot, with_key: bool = True) -> dict[str, Any]:
        """What a tree row shows (without its key for :meth:`reveal`)."""
        out = {
            "key": key,
            "name": _slot_name(slot),
            "id": slot.id,
            "active": slot.active is not False,
            "children": len(slot.children),
            "components": [_type_text(c)[1] for c in slot.components[:6]],
            "component_count": len(slot.components),
            "findings": self.index.by_key.get(key, 0),
        }
        if not with_key:
            del out["key"]
        return out

    def children(self, key: str, offset: int = 0, limit: int = PAGE) -> dict[str, Any]:
        return self.children_of(self.slot(key), key, offset, limit)

    def children_of(
        self, slot: Slot, key: str, offset: int = 0, limit: int = PAGE, keys: bool = True
    ) -> dict[str, Any]:
        """A page of a slot's children; ``keys=False`` leaves out every key (the page
        derives them: the list's from the request, a child's as the list's plus its index)."""
        kids = slot.children
        rows = [
            self.summary(f"{key}.{i}", kids[i], keys)
            for i in range(offset, min(len(kids), offset + limit))
        ]
        out = {"key": key, "offset": offset, "total": len(kids), "children": rows}
        if not keys:
            del out["key"]
        return out

    def reveal(self, key: str) -> dict[str, Any]:
        """The children of every ancestor of a slot, so the page opens the tree down to it in
        one request (a page of children around the one on the path).

        Linear in the depth: one descent, and no keys in the answer (a key is as long as its
        depth, so listing each ancestor's children with theirs was depth squared: 130 MB at
        8,000 levels).  The pages shrink as the path deepens so the answer holds at most
        about :data:`REVEAL_LIMIT` summaries besides one per level."""
        path = key_path(key)
        page = max(1, min(PAGE, REVEAL_LIMIT // max(1, len(path))))
        lists = []
        slot, current = self.tree.root, "0"
        for depth, i in enumerate(path):
            kids = slot.children
            if i >= len(kids):
                parent = ".".join(key.split(".")[: depth + 1])
                raise ViewError(f"no slot {key}: slot {parent} has {len(kids)} children")
            start = max(0, i - page // 2)
            lists.append(self.children_of(slot, current, start, page, keys=False))
            slot, current = kids[i], key if depth == len(path) - 1 else f"{current}.{i}"
        return {"key": key, "lists": lists}

    def detail(self, key: str) -> dict[str, Any]:
        """The inspector's content: members, components with typed fields, links, findings."""
        return self.detail_of(self.slot(key), key)

    def detail_of(self, slot: Slot, key: str) -> dict[str, Any]:
        """:meth:`detail` of a slot already found (the static export walks every slot)."""
        members: list[dict[str, Any]] = []
        for field_name in (*SLOT_MEMBERS, "ParentReference", "Persistent-ID"):
            if field_name not in slot:
                continue
            member = slot.member(field_name)
            if member is not None and member.id is not None:
                members.append(
                    {
                        "name": field_name,
                        "id": member.id,
                        "value": self.typed(member.value, field_name),
                    }
                )
            else:  # an ID key (ParentReference, Persistent-ID): defines an ID, names nothing
                raw_value = slot.get(field_name)
                shown = (
                    {"t": "id", "v": raw_value}
                    if isinstance(raw_value, str)
                    else self.typed(raw_value)
                )
                members.append({"name": field_name, "id": None, "value": shown})
        components = []
        for i, comp in enumerate(slot.components):
            full, short = _type_text(comp)
            fields = []
            try:
                comp_fields = comp.fields
            except ModelError as exc:
                comp_fields = {}
                fields.append(
                    {"name": "(error)", "id": None, "value": {"t": "str", "v": exc.message}}
                )
            for fname, member in comp_fields.items():
                fields.append(
                    {"name": fname, "id": member.id, "value": self.typed(member.value, fname)}
                )
            components.append(
                {
                    "index": i,
                    "type": full,
                    "short": short,
                    "id": _component_id(comp),
                    "fields": fields,
                }
            )
        index = self.index
        ready = index.findings_ready.is_set()
        findings = index.listed.get(key, []) if ready else []
        return {
            "key": key,
            "name": _slot_name(slot),
            "id": slot.id,
            "path": slot.display_path(),
            "members": members,
            "components": components,
            "findings": findings,
            # References are resolved once the worker's graph is ready; until then the page
            # resolves a link when it is followed, and asks for this slot again later.
            "pending": not index.targets_ready.is_set(),
        }

    def incoming(self, key: str, timeout: float | None = 120.0) -> list[dict[str, Any]]:
        """References to this slot and its components (waits for the worker's graph)."""
        key_path(key)
        if not self.index.refs_ready.wait(timeout):
            return []
        with self.index.lock:
            return self.index.incoming(key)

    def target(self, element_id: str, timeout: float | None = 120.0) -> dict[str, Any] | None:
        """Where an ID points (see :meth:`Index.target`; waits for the worker's graph)."""
        if not self.index.targets_ready.wait(timeout):
            return None
        with self.index.lock:
            return self.index.target(element_id)

    def typed(self, value: Any, field_name: str = "") -> dict[str, Any]:
        """A value with the kind the inspector shows it as (the format has no field types:
        the shape and the field's name tell float3 from floatQ from colorX)."""
        if value is None:
            return {"t": "null"}
        if isinstance(value, bool):
            return {"t": "bool", "v": value}
        if isinstance(value, int):
            return {"t": "int", "v": int(value)}
        if isinstance(value, float):
            return {"t": "float", "v": _json_number(value)}
        if isinstance(value, str):
            return self._typed_text(value, field_name)
        if isinstance(value, bytes):
            return {"t": "binary", "size": len(value)}
        if isinstance(value, datetime):
            return {"t": "str", "v": value.isoformat()}
        if isinstance(value, dict):
            return {
                "t": "doc",
                "fields": [{"name": k, "value": self.typed(v, k)} for k, v in value.items()],
            }
        if isinstance(value, list):
            return self._typed_list(value, field_name)
        return {"t": "str", "v": repr(value)}

    def _typed_text(self, value: str, field_name: str) -> dict[str, Any]:
        if GUID.match(value):
            if not self.index.targets_ready.is_set():
                return {"t": "ref", "v": value, "pending": True}
            return {"t": "ref", "v": value, "target": self.target(value)}
        url = parse_url(value)
        if url is not None or "://" in value:
            out: dict[str, Any] = {"t": "uri", "v": value}
            kind = self.asset_kind(value) if url is not None else None
            if url is not None and kind is not None:
                out["asset"] = url.name
                out["kind"] = kind
                out["image"] = kind in IMAGE_KINDS
            return out
        if _ENUM.match(value) and field_name not in _TEXT_FIELDS:
            return {"t": "enum", "v": value}
        return {"t": "str", "v": value}

    def _typed_list(self, value: list[Any], field_name: str) -> dict[str, Any]:
        numbers = [v for v in value if _number(v)]
        lowered = field_name.lower()
        if (
            len(value) == 5
            and len(numbers) == 4
            and isinstance(value[4], str)
            and value[4] in _COLOR_PROFILES
        ):
            return {"t": "colorX", "v": [_json_number(v) for v in numbers], "profile": value[4]}
        if numbers and len(numbers) == len(value):
            nums = [float(v) for v in numbers]
            out = [_json_number(v) for v in numbers]
            if len(nums) == 4 and ("color" in lowered or "tint" in lowered):
                return {"t": "color", "v": out}
            if len(nums) == 4 and all(map(math.isfinite, nums)):
                norm = math.sqrt(sum(v * v for v in nums))
                if abs(norm - 1.0) < 1e-3 or "rotation" in lowered:
                    euler = quaternion_euler([v / norm for v in nums]) if norm else [0.0] * 3
                    return {"t": "floatQ", "v": out, "euler": euler}
            kinds = {2: "float2", 3: "float3", 4: "float4", 9: "float3x3", 16: "float4x4"}
            if len(nums) in kinds:
                return {"t": kinds[len(nums)], "v": out}
        return {
            "t": "list",
            "items": [self.typed(v, field_name) for v in value[:1000]],
            "size": len(value),
        }

    # -- assets and geometry --------------------------------------------------------------
    def asset_kind(self, url: str) -> str | None:
        """The asset's kind when this file holds it (its package, or the --assets folders)."""
        parsed = parse_url(url)
        if parsed is None:
            return None
        if parsed.scheme == "packdb":
            if self.package is None or parsed.name not in self.package.assets:
                return None
        elif parsed.scheme != "resdb" or not self.assets.dirs:
            return None
        data = self.assets.get(url)
        return identify(data[:64]) if data is not None else None

    def asset(self, name: str) -> tuple[bytes, str]:
        """An image asset of this file by its hash, as bytes a browser shows and their MIME
        type.  Only assets the opened file holds (its package entries, or the files named by
        hash in the --assets folders) are served; never anything addressed by a path."""
        if not re.fullmatch(r"[0-9a-f]{64}", name):
            raise ViewError("not an asset name")
        data = None
        if self.package is not None and name in self.package.assets:
            data = self.assets.get(f"packdb:///{name}")
        elif self.assets.dirs:
            data = self.assets.get(f"resdb:///{name}")
        if data is None:
            raise ViewError(f"no asset {name} in this file")
        kind = identify(data)
        if kind in BROWSER_IMAGES:
            return data, BROWSER_IMAGES[kind]
        try:
            from brson.gltf.images import for_gltf  # Pillow: the gltf extra
        except ImportError:
            raise ViewError(f"a {kind} asset needs the gltf extra to be shown") from None
        converted, mime = for_gltf(data)
        return converted, mime

    def glb(self, key: str) -> bytes:
        """The subtree of a slot as GLB, from the glTF exporter (meshes, materials, textures;
        every slot a node whose extras carry its ID, so the viewport selects the tree's slot)."""
        cached = self._glb.get(key)
        if cached is not None:
            return cached
        top = self.slot(key)
        size = sum(1 for _ in itertools.islice(top.walk(), GLB_LIMIT + 1))
        if size > GLB_LIMIT:  # the export holds the page's lock: seconds for a huge world
            raise ViewError(
                f"more than {GLB_LIMIT} slots under this slot: select a smaller part for 3D"
            )
        try:
            from brson.gltf.export import export_gltf  # numpy: the gltf extra
        except ImportError:
            raise ViewError(
                "the 3D view needs the gltf extra (pip install 'brson[gltf]')"
            ) from None
        # Without the top slot's own transform: the subtree is shown where the viewport looks
        # (a hidden top, scale 0 as in the standin sample's Visual, would show nothing).
        document, _report = export_gltf(self.tree, top, assets=self.assets, place_top=False)
        data = document.glb()
        self._glb[key] = data
        return data

    def search(self, query: str, mode: str = "all") -> dict[str, Any]:
        """Slots by name (substring), component type (substring of any spelling) or ID (a
        whole ID finds any element holding it; a part matches slot and component IDs)."""
        text = query.strip().lower()
        if not text:
            return {"query": query, "total": 0, "results": []}
        results: list[dict[str, Any]] = []
        index = self.index
        if mode in ("all", "id") and GUID.match(text):
            found = self.target(text)
            if found is not None and found["key"] is not None:
                results.append({"key": found["key"], "match": f"{found['kind']} {found['label']}"})
        if not index.entries_ready.wait(120.0):
            return {"query": query, "total": len(results), "results": results, "pending": True}
        total = len(results)
        for entry in index.entries:
            match = _match(entry, text, mode)
            if match is None or (match == "slot ID" and entry.id.lower() == text and results):
                continue  # the slot the whole ID already found
            total += 1
            if len(results) < SEARCH_LIMIT:
                results.append(
                    {"key": entry.key, "name": entry.name, "id": entry.id, "match": match}
                )
        return {"query": query, "total": total, "results": results}

    def findings(self) -> dict[str, Any]:
        index = self.index
        if not index.findings_ready.is_set():
            return {
                "ready": False,
                "targets": index.targets_ready.is_set(),
                "refs": index.refs_ready.is_set(),
            }
        return {
            "ready": True,
            "counts": index.counts,
            "findings": index.findings,
            "error": index.error,
        }


def _match(entry: Entry, text: str, mode: str) -> str | None:
    if mode in ("all", "name") and text in entry.name.lower():
        return "name"
    if mode in ("all", "type") and text in entry.types:
        return "component type"
    if mode in ("all", "id") and text in entry.id.lower():
        return "slot ID"
    return None
