"""The JSON form read into BSON, by the compiled streaming reader or by ``json.loads``.

:func:`read_bson` is what ``from-json`` runs: the C reader (brson/_speedups/_formstreamc.c)
writes the BSON straight from the text, no Python object per value, and may read a file
mapping whose pages it hands back as it goes, so neither the text nor a parsed tree is held
whole. Whatever it is not sure of (malformed or hostile text, a form without its number
record, a tag spelled another way) it leaves to :func:`read_bson_python`, the pure-Python
path (``json.loads``, :func:`jsonform.loads_form`, ``bson.encode``), which is also the
reference it is tested against (tests/document/test_formstreamc.py): the same bytes, the
same container record and the same report of restored number types, or its refusal.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from brson._speedups import load
from brson.codecs import Codec
from brson.document import bsondoc, jsonform, numberrecord

if TYPE_CHECKING:
    from mmap import mmap

    from brson._speedups import _formstreamc
else:
    _formstreamc = load("_formstreamc")
ACCELERATED: bool = _formstreamc is not None


@dataclass
class FormBson:
    """A JSON form read: the document's BSON, its container's ``(codec, legacy)`` when
    recorded, and what the number record restored (None: the form has none)."""

    bson: bytes
    container: tuple[Codec, bool] | None
    numbers: numberrecord.Restored | None


def read_bson(text: bytes | mmap, release: bool = False) -> FormBson | None:
    """The form's BSON by the compiled reader; None when it leaves ``text`` to
    :func:`read_bson_python` (or was not built). ``release``: ``text`` is a read-only file
    mapping (``mmap.ACCESS_READ``) whose pages may be handed back once read."""
    if _formstreamc is None:
        return None
    done = _formstreamc.read(text, release)
    if done is None:
        return None
    data, span, counts = done
    container = None
    if span is not None:  # a flat object of strings: what read_container_record reads
        start, end = span
        container = jsonform.read_container_record(json.loads(bytes(text[start:end])))
    doubles, widened, unknown, unknown_ids, ambiguous, ambiguous_ids = counts
    numbers = numberrecord.Restored(
        doubles, widened, unknown, _in_order(unknown_ids), ambiguous, _in_order(ambiguous_ids)
    )
    return FormBson(data, container, numbers)


def _in_order(ranked: list[tuple[int, str]]) -> list[str]:
    """Reported element IDs in document order (C finds them as elements close)."""
    return [ident for _, ident in sorted(ranked)]


def read_bson_python(data: bytes) -> tuple[jsonform.Form, bytes]:
    """The pure-Python path: the parsed form (its document untagged, its numbers restored)
    and the document's BSON. Each refusal is a DocumentError."""
    text = jsonform.decode_text(data)
    form = jsonform.loads_form(text)
    return form, bsondoc.encode(form.doc)
