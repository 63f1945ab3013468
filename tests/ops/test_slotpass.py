"""validate's compiled slot pass (``_fieldsc.slots``, :mod:`brson.ops.validate.slotpass`)
against its reference, the rule families themselves.

Differential, slot by slot: a slot the pass calls CLEAN is one on which every family finds
nothing when it reads the decoded slot (TRANSFORM: nothing but the transform rule), and what
the pass hands back for it (types used, ProtoFlux components, referenced IDs) is what the
families would keep.  Whole trees: ``validate`` with the pass reports exactly what the walk
that decodes every slot reports, on every sample and fixture, on the rule fixtures (one
finding each), and on mutated copies of the real samples' bytes (IDs, numbers, types).
"""

from __future__ import annotations

import random
import struct
from typing import Any

import pytest

import brson
from brson._speedups import built
from brson.errors import BrsonError
from brson.model.ids.scan import IdCensus
from brson.model.transform import TRANSFORM_FIELDS
from brson.model.tree import DataTree
from brson.ops.validate import slotpass, validate, walk
from brson.ops.validate.context import ComponentInfo, Context, SlotInfo
from brson.ops.validate.findings import Finding, Findings
from brson.ops.validate.protoflux import ProtoFluxRules
from brson.ops.validate.transforms import TransformRules
from tests.conftest import FIXTURES, SAMPLES
from tests.differential import loadable_trees
from tests.tiers import sweep

needs_c = pytest.mark.skipif(built("_fieldsc") is None, reason="validate's C loop is not built")


def _verdicts(tree: DataTree) -> tuple[Context, slotpass.SlotVerdicts, set[int]] | None:
    ctx = Context(tree, Findings())
    census = IdCensus.scan(tree)
    if ctx.legacy or not ctx.types_ok or census is None or tree.modified:
        return None
    ctx.census = census
    flux = ProtoFluxRules()
    flux.root(ctx)
    found = slotpass.verdicts(tree, len(ctx.type_names), flux.indices, census.defined_values)
    return None if found is None else (ctx, found, flux.indices)


def _families_on(ctx: Context, slot: Any) -> tuple[list[Finding], list[Finding]]:
    """(findings of every family but the transform rule, the transform rule's) on one slot,
    read as the walk reads it (decoded in one call)."""
    decoded = walk._decoded_slot(slot, True)
    assert decoded is not None, "a slot the pass reads must decode"
    fields, components = decoded
    others, transform = Findings(), Findings()
    for family_cls in walk.FAMILIES:
        family = family_cls()
        sink = transform if family_cls is TransformRules else others
        local = Context(ctx.tree, sink)
        local.census = ctx.census
        family.root(Context(ctx.tree, Findings()))  # root findings are not the slot's
        family.slot(local, SlotInfo(slot, fields))
        infos = [ComponentInfo(local, doc, slot) for doc in components]
        ComponentInfo.scan_all(infos)
        for info in infos:
            family.component(local, info)
    return others.items, transform.items


def _trees() -> list[tuple[str, DataTree]]:
    return sorted(loadable_trees().items())


@needs_c
@pytest.mark.parametrize("name", [name for name, _ in _trees()])
def test_verdicts_match_the_families(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = loadable_trees()[name]
    got = _verdicts(tree)
    if got is None:
        # the pass declines this tree (legacy, a type table it cannot read, repeated IDs, or
        # bytes C is unsure of): validate then takes the walk, and reports the same
        with_pass = validate(tree)
        monkeypatch.setattr(slotpass, "verdicts", lambda *args: None)
        assert validate(tree) == with_pass, name
        return
    ctx, found, flux_types = got
    rows = slotpass.SlotRows(tree, found.slots)
    flux_rows = [found.flux[at + 2] for at in range(0, len(found.flux), 3)]
    refs = {row: (slot_id, link) for row, slot_id, link in found.refs}
    for row, verdict in enumerate(found.verdicts):
        if verdict == slotpass.UNSURE:
            assert row not in refs and row not in flux_rows
            continue
        slot = rows.slot(row)
        others, transform = _families_on(ctx, slot)
        assert others == [], (name, row)
        if verdict == slotpass.CLEAN:
            assert transform == [], (name, row)
        fields, components = walk._decoded_slot(slot, True) or ({}, [])
        listed = [
            (found.transforms[at], found.transforms[at + 1])
            for at in range(0, len(found.transforms), 3)
            if found.transforms[at + 2] == row
        ]
        if verdict == slotpass.TRANSFORM:  # its transform members and name, as decoded
            read = {key for key, _ in TRANSFORM_FIELDS} | {"Name"}
            wanted_members = {key: value for key, value in fields.items() if key in read}
            got = walk.transform_members(tree.buffer, listed)
            assert repr(got) == repr(wanted_members), (name, row)  # repr: NaN is not NaN
        else:
            assert listed == []
        kinds = [int(doc["Type"]) for doc in components]
        assert all(found.used[kind] for kind in kinds)
        assert flux_rows.count(row) == sum(kind in flux_types for kind in kinds)
        wanted = tuple(
            value if value is not None and value in ctx.census.defined_values else None  # type: ignore[union-attr]
            for value in (fields.get("ID"), fields.get("ParentReference"))
        )
        assert refs.get(row, (None, None)) == wanted


def _both_ways(
    data: bytes,
    name: str,
    monkeypatch: pytest.MonkeyPatch,
    off: tuple[object, str, Any] = (slotpass, "verdicts", lambda *args: None),
) -> None:
    """``validate`` of the bytes with the pass and with the walk decoding every slot (or with
    ``off``, another (object, attribute, value), patched in)."""
    try:
        tree = brson.loads(data, name=name)
    except (BrsonError, MemoryError):
        return
    with_pass = validate(tree)
    with monkeypatch.context() as patched:
        patched.setattr(*off)
        without = validate(brson.loads(data, name=name))
    assert with_pass == without, name


@needs_c
@pytest.mark.parametrize(
    "path",
    sorted(
        (
            p
            for d in (SAMPLES, FIXTURES / "validate", FIXTURES / "real")
            for p in d.glob("*.*")
            if p.suffix not in (".md", ".py") and p.is_file()
        ),
        # the project's files first wherever the checkout is: a name in both gets the same ID
        key=lambda p: (p.is_relative_to(SAMPLES), str(p)),
    ),
    ids=lambda p: p.name,
)
def test_same_findings_with_and_without_the_pass(
    path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _both_ways(path.read_bytes(), path.name, monkeypatch)


def _mutations(buf: bytes, seed: int) -> list[bytes]:
    """Copies of a tree's BSON with one value changed where the pass reads: a GUID's
    character, a double (to 0, NaN, a norm off 1), an int32 type index, an element type."""
    rng = random.Random(seed)
    out = []
    guids = [at for at in range(len(buf) - 40) if buf[at : at + 4] == b"\x25\x00\x00\x00"]
    doubles = [at for at in range(len(buf) - 9) if buf[at] == 0x01 and buf[at + 2] == 0]
    types = [at for at in range(len(buf) - 10) if buf.startswith(b"\x10Type\x00", at)]
    for _ in range(sweep(40, 10)):
        data = bytearray(buf)
        pick = rng.randrange(4)
        if pick == 0 and guids:
            at = rng.choice(guids) + 4 + rng.randrange(36)
            data[at] = ord(rng.choice("g-0Z \xe9"[:6]))
        elif pick == 1 and doubles:
            at = rng.choice(doubles) + 3
            value = rng.choice([0.0, float("nan"), 0.5, -0.0, 1e300])
            data[at : at + 8] = struct.pack("<d", value)
        elif pick == 2 and types:
            at = rng.choice(types) + 6
            data[at : at + 4] = struct.pack("<i", rng.choice([-1, 9999, 0]))
        elif guids:
            at = rng.choice(guids) - 4
            data[at] = rng.choice([0x0A, 0x12, 0x10, 0x08])
        out.append(bytes(data))
    return out


@pytest.mark.slow
@needs_c
@pytest.mark.parametrize(
    "name", ["mar_AimConstraint.pg.brson", "orange3134_AvatarRootIdentification.brson"]
)
def test_same_findings_on_mutated_samples(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path = SAMPLES / name
    if not path.exists():
        pytest.skip("the shared samples are not here")
    bson_bytes = brson.load(path).buffer
    for number, data in enumerate(_mutations(bson_bytes, len(name))):
        _both_ways(data, f"{number}.bson", monkeypatch)
