"""The glTF nodes kept as text (brson.gltf.nodes) write what the dicts they stand for write,
and the slot nodes' transform texts, remembered by the bits of their numbers, are the ones
each slot's numbers give."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import brson
from brson.gltf import export_gltf, slotnodes
from brson.gltf.nodes import Nodes, compact, node_text, value_text

NAMES = ["", "plain", 'quo"te\\', "caf\u00e9 \u2603 \U0001f600", "\x00\x1f\x7f", "\ud800 lone"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("hidden", [False, True])
def test_node_text_is_json_dumps(name: str, hidden: bool) -> None:
    translation = [1.5, -0.0, 1e-300]
    node: dict[str, Any] = {"name": name, "translation": translation, "scale": [2.0, 2.0, 1.0]}
    node["extras"] = {"resonite_id": None, "resonite_components": [name, "Box"]}
    if hidden:
        node["extensions"] = {"KHR_node_visibility": {"visible": False}}
    members = ',"translation":[1.5,-0.0,1e-300],"scale":[2.0,2.0,1.0]'
    extras = '{"resonite_id":' + value_text(None) + ',"resonite_components":'
    extras += compact([name, "Box"]).decode() + "}"
    assert node_text(name, members, extras, hidden) == compact(node)
    assert value_text(name) == json.dumps(name)


def test_later_members_and_children_keep_a_dicts_order() -> None:
    """Random sequences of ``node[key] = value`` and ``children.append`` on a text node and on
    the dict it stands for: the same JSON, as text and read back."""
    rng = random.Random(7)
    for _ in range(300):
        nodes, dicts = Nodes(), []
        for number in range(4):
            head: dict[str, Any] = {"name": f"n{number}", "extras": {"resonite_id": "x"}}
            dicts.append(dict(head))
            nodes.add_text(compact(head)) if number % 3 else nodes.add(dict(head))
        for _step in range(rng.randrange(8)):
            parent = rng.randrange(4)
            if rng.random() < 0.5:
                child = len(dicts)
                dicts.append({"name": "kid"})
                assert nodes.add({"name": "kid"}) == child
                nodes.add_child(parent, child)
                dicts[parent].setdefault("children", []).append(child)
            else:
                key = rng.choice(["mesh", "weights", "skin"])
                value = rng.choice([3, [0.5, 1.0]])
                nodes.set(parent, key, value)
                dicts[parent][key] = value
        expected = json.dumps(dicts, separators=(",", ":")).encode()
        assert b"".join(nodes.pieces()) == expected
        assert nodes.dicts() == dicts
        assert [nodes.children(i) for i in range(len(dicts))] == [
            d.get("children", []) for d in dicts
        ]


def test_transform_texts_by_their_numbers_bits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Slots whose numbers are equal but for a zero's sign get their own texts (glTF's
    translation negates z: 0.0 is written -0.0 and -0.0 is written 0.0), past the memo's
    size too, and each slot's text is the one its own numbers give."""
    monkeypatch.setattr(slotnodes, "MEMO_LIMIT", 6)  # a few slots fill it
    tree = brson.load("fixtures/tiny.brson")
    signs = [0.0, -0.0] * 4 + [float(i) for i in range(slotnodes.MEMO_LIMIT + 5)]
    for number, z in enumerate(signs):
        slot = tree.root.add_child(f"s{number}")
        slot.position = [1.0, 0.0, z]
        slot.rotation = [0.0, 0.0, z, 1.0]
        slot.scale = [1.0, 1.0, z or 1.0]
    document, _report = export_gltf(tree)
    nodes = {node["name"]: node for node in document.finish()["nodes"]}
    for number, z in enumerate(signs):
        node = nodes[f"s{number}"]
        assert json.dumps(node["translation"]) == json.dumps([1.0, 0.0, -z])
        if "rotation" in node:
            assert node["rotation"][2] == pytest.approx(z / (1 + z * z) ** 0.5)
