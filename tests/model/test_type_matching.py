"""One rule names a component type, for the model, the edit selectors and the CLI (issue 11,
defect 3: ``Slot.find_component`` and the edit selectors disagreed on namespaced generics)."""

from __future__ import annotations

from pathlib import Path

import pytest

import brson
from brson.ops.selectors import component_on

SAMPLES = Path(__file__).resolve().parents[2].parent / "shared" / "samples"
STANDIN = SAMPLES / "orange3134_loading_standin.brson"

SPELLINGS = [
    "[FrooxEngine]FrooxEngine.DynamicReferenceVariableDriver<[FrooxEngine]FrooxEngine.Slot>",
    "FrooxEngine.DynamicReferenceVariableDriver<[FrooxEngine]FrooxEngine.Slot>",
    "DynamicReferenceVariableDriver<[FrooxEngine]FrooxEngine.Slot>",
    # the short form brson tree / show / flux print, so a name copied from them selects it
    "DynamicReferenceVariableDriver<Slot>",
    "FrooxEngine.DynamicReferenceVariableDriver",
    "DynamicReferenceVariableDriver",
]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_find_component_and_selectors_agree(spelling: str) -> None:
    if not STANDIN.is_file():
        pytest.skip("shared samples not present")
    tree = brson.load(STANDIN)
    found = [(s, s.find_component(spelling)) for s in tree.walk()]
    hits = [(s, c) for s, c in found if c is not None]
    assert len(hits) == 1
    slot, component = hits[0]
    assert component_on(slot, spelling) is component
    assert component.is_type(spelling)


def test_other_spellings_match_nothing() -> None:
    if not STANDIN.is_file():
        pytest.skip("shared samples not present")
    tree = brson.load(STANDIN)
    for wrong in ("DynamicReferenceVariableDriver<User>", "Driver", "frooxengine.slot"):
        assert all(s.find_component(wrong) is None for s in tree.walk())
