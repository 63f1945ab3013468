"""The ProtoFlux model on synthetic trees made from a real one: linear work, hostile names,
``--slot``, and each kind of broken connection kept as an issue, never as an edge."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import bson
import pytest

import brson
from brson import flux
from brson._speedups import load
from brson.cli.app import main
from brson.flux.model import Builder
from brson.model.ids.scan import IdCensus
from brson.model.tree import is_guid
from brson.ops.validate import slotpass, validate
from tests.regressions.test_issue12_scaling import _linear, _lines

PROJECT_ROOT = Path(__file__).resolve().parents[2]
BASE = PROJECT_ROOT / "fixtures" / "validate" / "base" / "orange3134_AvatarRootIdentification.brson"
GROUP = "<color=#FF0000>Check Avatar Worn</color> - (11 Nodes)"
_serial = itertools.count(0x10000)


def base_doc() -> dict[str, Any]:
    return bson.decode(brson.load(BASE).to_bson())


def group(doc: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = next(s for s in doc["Object"]["Children"] if s["Name"]["Data"] == GROUP)
    return found


def node_slot(doc: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(s for s in group(doc)["Children"] if s["Name"]["Data"] == name)
    return found


def _defined(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if (key == "ID" or key.endswith("-ID") or key == "ParentReference") and is_guid(item):
                yield item
            yield from _defined(item)
    elif isinstance(value, list):
        for item in value:
            yield from _defined(item)


def renumbered(slot: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``slot`` whose own IDs (and the references among them) are fresh."""
    fresh = {old: f"{next(_serial):08x}-aaaa-0000-0000-000000000000" for old in _defined(slot)}

    def swap(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: swap(v) for k, v in value.items()}
        if isinstance(value, list):
            return [swap(v) for v in value]
        return fresh.get(value, value) if isinstance(value, str) else value

    made: dict[str, Any] = swap(copy.deepcopy(slot))
    return made


def chain(n: int, linked: bool = True) -> brson.DataTree:
    """The real group with ``n`` more AND_Bool nodes, each reading the one before (a chain
    through the whole group: one graph), or (not ``linked``) each reading itself: ``n`` more
    graphs of one node and one edge each."""
    doc = base_doc()
    template = node_slot(doc, "AND_Bool")
    previous = template["Components"]["Data"][0]["Data"]["ID"]
    kids = group(doc)["Children"]
    for _ in range(n):
        made = renumbered(template)
        data = made["Components"]["Data"][0]["Data"]
        data["A"]["Data"] = previous if linked else data["ID"]
        if not linked:
            data["B"]["Data"] = None
        previous = data["ID"]
        kids.append(made)
    return brson.loads(bson.encode(doc), name="chain.bson")


def test_a_chain_is_one_graph() -> None:
    model = flux.build(chain(5))
    assert len(model.nodes) == 15 and len(model.graphs) == 1
    assert model.counts()["value"] == 12 + 2 * 5 and not model.issues  # A and B each


@pytest.mark.slow  # traces the model at three sizes
@pytest.mark.parametrize("linked", [True, False], ids=["one-graph", "many-graphs"])
def test_building_and_printing_is_linear_work(linked: bool) -> None:
    """Counted apart: printing is the smaller part, and a quadratic print (each graph looking
    through every edge: 2.9 on many graphs) hid under the linear build when counted together."""

    def build(n: int) -> int:
        tree = chain(n, linked)
        return _lines(lambda: flux.build(tree))

    def render(n: int) -> int:
        model = flux.build(chain(n, linked))

        def run() -> None:
            flux.text_lines(model)
            flux.to_dot(model)
            flux.to_json(model)

        return _lines(run)

    _linear(build, 40, "flux.build")
    # 50: the smallest size at which that quadratic print (each graph's edges found among all
    # the edges) still fails the guard (growth 2.66; 2.4 at 25)
    _linear(render, 50, "text, DOT and JSON")


def test_names_that_would_break_lines_are_escaped(tmp_path: Path) -> None:
    doc = base_doc()
    node_slot(doc, "IsLocalUser")["Name"]["Data"] = 'quote" back\\slash\r\x00'
    group(doc)["Name"]["Data"] = "group\nname\u2028x"
    tree = brson.loads(bson.encode(doc), name="odd.bson")
    lines = flux.text_lines(tree)
    assert all("\n" not in line and "\r" not in line and "\u2028" not in line for line in lines)
    assert lines[0] == "graph 1 in Avatar Root Identification/group\\nname\\u2028x"
    assert any('slot quote" back\\slash\\r\\x00 at' in line for line in lines)
    dot = flux.to_dot(flux.build(tree))
    assert "\x00" not in dot and "\r" not in dot


def test_slot_option_keeps_the_nodes_under_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "odd.brson"
    brson.dump(chain(2), source)
    assert main(["flux", str(source), "-s", "AND_Bool"]) == 2  # three slots of that name
    assert "matches" in capsys.readouterr().err
    code = main(["flux", str(source), "-s", "IsLocalUser"])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    assert [line.split("(")[0] for line in lines] == [
        "graph 1 in Avatar Root Identification/<color=#FF0000>Check Avatar Worn</color> - ",
        "  node IsLocalUser",
        "  value GetActiveUserSelf",
    ]


def _issue_kinds(doc: dict[str, Any]) -> list[str]:
    model = flux.build(brson.loads(bson.encode(doc), name="x.bson"))
    return [issue.kind for issue in model.issues]


def broken_doc() -> dict[str, Any]:
    """The base tree with one connection of each kind the engine could not make."""
    doc = base_doc()
    value_field = doc["Object"]["Components"]["Data"][1]["Data"]["ID"]  # a ValueField<bool>
    node = node_slot(doc, "IsLocalUser")["Components"]["Data"][0]["Data"]
    node["User"]["Data"] = value_field
    node["Next"] = {"ID": "0000fff0-0000-0000-0000-000000000000", "Data": value_field}
    drive = node_slot(doc, "ValueFieldDrive`1")["Components"]["Data"][1]["Data"]
    drive["Node"]["Data"] = node["ID"]  # a proxy naming a node on another slot
    assets = doc.setdefault("Assets", [])
    assets.append(copy.deepcopy(node_slot(doc, "NotNull`1")["Components"]["Data"][0]))
    assets[-1]["Data"] = renumbered(assets[-1]["Data"])
    return doc


def test_broken_connections_are_issues_not_edges() -> None:
    kinds = _issue_kinds(broken_doc())
    assert sorted(kinds) == sorted(
        ["input-not-output", "impulse-not-node", "helper-without-node", "node-without-slot"]
    )


def test_samples_have_no_issues() -> None:
    for path in sorted((PROJECT_ROOT.parent / "shared" / "samples").glob("*")):
        if path.suffix == ".md":
            continue
        tree = brson.load(path) if path.suffix != ".resonitepackage" else None
        if tree is None:
            from brson.package import load_package

            tree = load_package(path).tree
        assert flux.build(tree).issues == [], path.name


def test_an_issues_only_build_fed_one_component_at_a_time_finds_the_same_issues() -> None:
    """validate's way (``Builder(issues_only=True, referenced=…)``, fed by its walk, keeping
    only the member IDs some reference names): the full model's issues, in its order."""
    tree = brson.loads(bson.encode(broken_doc()), name="x.bson")
    full = flux.build(tree)
    census = IdCensus.scan(tree)
    assert census is not None
    builder = Builder(tree, issues_only=True, referenced=census.defined_values)
    for slot in tree.walk():
        for component in slot.components:
            builder.add(slot, component.decoded())
    for component in tree.assets:
        builder.add(None, component.decoded())
    light = builder.finish()
    assert len(full.issues) == 4
    assert light.issues == full.issues
    assert list(builder.node_data) == [node.id for node in full.nodes]
    assert full.edges and full.graphs and not light.edges and not light.graphs
    assert not light.nodes  # no node object per node: validate reports issues only
    outputs_read = {edge.target for edge in full.edges if edge.output is not None}
    assert outputs_read <= set(builder.members) <= census.defined_values


@pytest.mark.slow  # traces validate at three sizes
@pytest.mark.parametrize("linked", [True, False], ids=["one-graph", "many-graphs"])
def test_validate_hands_nodes_on_in_linear_work(
    linked: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """validate's walk hands ProtoFlux components to the model in runs (more than one here),
    each node read from its bytes where C is built: linear work in the nodes, and every
    node through the runs (none decoded on the way)."""
    read: list[int] = []
    real = slotpass.node_reads

    def spy(*args: Any) -> Any:
        answers = real(*args)
        read.extend(answer is not None for answer in answers)
        return answers

    monkeypatch.setattr(slotpass, "node_reads", spy)

    def work(n: int) -> int:
        tree = chain(n, linked)
        return _lines(lambda: validate(tree))

    _linear(work, 2 * slotpass.RUN, "validate of ProtoFlux nodes")
    if load("_fieldsc") is not None:  # nodes read from their bytes, not decoded
        assert sum(read) >= 4 * 2 * slotpass.RUN
