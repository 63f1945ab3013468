"""A glTF 2.0 document under construction and its two file forms: ``.glb`` (one binary file) and
``.gltf`` + ``.bin`` (JSON beside one buffer file).  Only what the exporter needs: accessors
over one buffer, images stored in that buffer, and the JSON arrays by name."""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import numpy as np

from brson.fileio import write_atomic
from brson.gltf.nodes import Nodes, compact

ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER = 34962, 34963
FLOAT, UNSIGNED_BYTE, UNSIGNED_SHORT, UNSIGNED_INT = 5126, 5121, 5123, 5125
_TYPES = {1: "SCALAR", 2: "VEC2", 3: "VEC3", 4: "VEC4", 16: "MAT4"}
_COMPONENT = {
    np.dtype(np.float32): FLOAT,
    np.dtype(np.uint8): UNSIGNED_BYTE,
    np.dtype(np.uint16): UNSIGNED_SHORT,
    np.dtype(np.uint32): UNSIGNED_INT,
}
GENERATOR = "brson"
#: Items of a long top-level array written to a .glb's JSON at a time.
_BATCH = 512


class Document:
    """The JSON by top-level member (``nodes``: a :class:`Nodes`, kept as text; the other
    arrays as lists of dicts), the buffer, the extensions used."""

    def __init__(self) -> None:
        self.json: dict[str, Any] = {"asset": {"version": "2.0", "generator": GENERATOR}}
        self.buffer = bytearray()
        self.extensions: set[str] = set()

    @property
    def nodes(self) -> Nodes:
        """The ``nodes`` array (made, in the JSON's member order, when first asked for: ask
        when adding one)."""
        nodes = self.json.get("nodes")
        if not isinstance(nodes, Nodes):
            nodes = self.json["nodes"] = Nodes()
        return nodes

    def add(self, kind: str, item: dict[str, Any]) -> int:
        """Append ``item`` to the top-level array ``kind``; its index."""
        if kind == "nodes":
            return self.nodes.add(item)
        items = self.json.setdefault(kind, [])
        items.append(item)
        return len(items) - 1

    def count(self, kind: str) -> int:
        return len(self.json.get(kind, []))

    def use(self, extension: str) -> None:
        self.extensions.add(extension)

    def _view(self, data: bytes, target: int | None = None, stride: int | None = None) -> int:
        while len(self.buffer) % 4:
            self.buffer.append(0)
        view: dict[str, Any] = {
            "buffer": 0,
            "byteOffset": len(self.buffer),
            "byteLength": len(data),
        }
        if target is not None:
            view["target"] = target
        if stride is not None:
            view["byteStride"] = stride
        self.buffer += data
        return self.add("bufferViews", view)

    def accessor(
        self,
        array: np.ndarray,
        *,
        indices: bool = False,
        bounds: bool = False,
        normalized: bool = False,
        vertex: bool = True,
    ) -> int:
        """An accessor over a copy of ``array`` (N x width, or N for scalars)."""
        data = np.ascontiguousarray(array)
        width = 1 if data.ndim == 1 else int(np.prod(data.shape[1:]))
        count = int(data.shape[0])
        target = ELEMENT_ARRAY_BUFFER if indices else ARRAY_BUFFER if vertex else None
        stride = None
        if vertex and not indices and data.dtype.itemsize * width % 4:
            # Vertex attributes must be 4-byte aligned per element: pad each row.
            stride = (data.dtype.itemsize * width + 3) // 4 * 4
            rows = np.zeros((count, stride), np.uint8)
            rows[:, : data.dtype.itemsize * width] = data.reshape(count, -1).view(np.uint8)
            raw = rows.tobytes()
        else:
            raw = data.astype(data.dtype.newbyteorder("<")).tobytes()
        accessor: dict[str, Any] = {
            "bufferView": self._view(raw, target, stride),
            "componentType": _COMPONENT[data.dtype],
            "count": count,
            "type": _TYPES[width],
        }
        if normalized:
            accessor["normalized"] = True
        if bounds and count:
            flat = data.reshape(count, width)
            accessor["min"] = [float(v) for v in flat.min(axis=0)]
            accessor["max"] = [float(v) for v in flat.max(axis=0)]
        return self.add("accessors", accessor)

    def image(self, png: bytes, mime: str, name: str | None = None) -> int:
        image: dict[str, Any] = {"bufferView": self._view(png), "mimeType": mime}
        if name:
            image["name"] = name
        return self.add("images", image)

    def finish(self, bin_uri: str | None = None) -> dict[str, Any]:
        """The whole glTF JSON as Python values (the nodes as dicts)."""
        out = self._members(bin_uri)
        nodes = out.get("nodes")
        if isinstance(nodes, Nodes):
            out["nodes"] = nodes.dicts()
        return out

    def _members(self, bin_uri: str | None) -> dict[str, Any]:
        """:meth:`finish`'s members, the nodes left as they are kept."""
        out = dict(self.json)
        if self.extensions:
            out["extensionsUsed"] = sorted(self.extensions)
        if self.buffer:
            while len(self.buffer) % 4:
                self.buffer.append(0)
            buffer: dict[str, Any] = {"byteLength": len(self.buffer)}
            if bin_uri is not None:
                buffer["uri"] = bin_uri
            out["buffers"] = [buffer]
        return out

    def glb(self) -> bytes:
        return b"".join(self._glb_pieces())

    def _glb_pieces(self) -> list[bytes]:
        """The ``.glb`` file in order: header, JSON chunk, BIN chunk, written one after the
        other, as a whole file made of them would hold the JSON and the buffer twice more."""
        body = list(_compact_json(self._members(None)))
        length = sum(map(len, body))
        pad = b" " * (-length % 4)
        pieces = [struct.pack("<II", length + len(pad), 0x4E4F534A), *body, pad]
        if self.buffer:
            # The buffer as it is, not a copy (a file's write takes a bytearray).
            pieces += [struct.pack("<II", len(self.buffer), 0x004E4942), cast(bytes, self.buffer)]
        return [struct.pack("<III", 0x46546C67, 2, 12 + sum(map(len, pieces))), *pieces]

    def save(self, path: str | Path) -> list[Path]:
        """Write ``.glb``, or ``.gltf`` with a ``.bin`` beside it; the files written."""
        target = Path(path)
        if target.suffix.lower() != ".gltf":
            write_atomic(target, self._glb_pieces())
            return [target]
        bin_path = target.with_suffix(".bin")
        text = list(_indented_json(self._members(bin_path.name)))
        written = [target]
        if self.buffer:
            write_atomic(bin_path, bytes(self.buffer))
            written.append(bin_path)
        write_atomic(target, text)
        return written


def _compact_json(document: dict[str, Any]) -> Iterator[bytes]:
    """``json.dumps(document, separators=(",", ":"))`` encoded, the same bytes, in pieces: a
    long top-level array (a world's nodes) a batch of items at a time, so that the text is
    never held whole beside the encoder's pieces of it and its encoded copy."""
    sep = b"{"
    for key, value in document.items():
        yield sep + compact(key) + b":"
        sep = b","
        if isinstance(value, Nodes):
            yield from value.pieces()
        elif isinstance(value, list) and len(value) > _BATCH:
            yield b"["
            for at in range(0, len(value), _BATCH):
                text = compact(value[at : at + _BATCH])[1:-1]
                yield text if at == 0 else b"," + text
            yield b"]"
        else:
            yield compact(value)
    yield b"}" if sep == b"," else b"{}"


def _indented_json(document: dict[str, Any]) -> Iterator[bytes]:
    """``json.dumps(document, indent=1, allow_nan=False)`` encoded, the same bytes, in
    pieces: each member's value as ``json.dumps`` writes it at the top (its lines after the
    first one space deeper: strings hold no raw line break), the nodes a batch at a time."""
    if not document:
        yield b"{}"
        return
    sep = "{\n "
    for key, value in document.items():
        head = sep + json.dumps(key) + ": "
        sep = ",\n "
        if isinstance(value, Nodes):
            yield head.encode("ascii")
            for piece in value.indented(1, _BATCH):
                yield piece.encode("ascii")
        else:
            text = json.dumps(value, indent=1, allow_nan=False).replace("\n", "\n ")
            yield (head + text).encode("ascii")
    yield b"\n}"
