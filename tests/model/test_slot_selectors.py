"""The selector rule on real files: rich-text names, paths below the root, ID prefixes, and the
tier order (brson.model.slotmatch; docs/editing.md, "Selectors")."""

from __future__ import annotations

from pathlib import Path

import bson
import pytest

import brson
from brson.cli.app import main
from brson.errors import SelectorError
from brson.model.slotmatch import plain


@pytest.fixture(scope="module")
def coresys(samples_dir: Path) -> brson.DataTree:
    return brson.load(samples_dir / "mar_coresys.resonitepackage")


@pytest.fixture(scope="module")
def aim(samples_dir: Path) -> brson.DataTree:
    return brson.load(samples_dir / "mar_AimConstraint.pg.brson")


def test_rich_text_names_match_as_they_show(coresys: brson.DataTree) -> None:
    slot = coresys.select("Check Avatar Worn - (11 Nodes)")
    assert slot.name == "<color=#FF0000>Check Avatar Worn</color> - (11 Nodes)"
    assert coresys.select("Settings Copier - (162 Nodes)").id == (
        "0000010d-0000-0000-0000-000000000000"
    )
    # each name of a path read as it shows, from the root or below it
    shown = "Modular Avatar - Core Systems v1.1.0/Modular Avatar Settings Copier v1.1.2"
    assert coresys.select(shown + "/Context Menu").name == "Context Menu"
    assert coresys.select("Modular Avatar Settings Copier v1.1.2/Context Menu/Items").name == (
        "Items"
    )


def test_paths_below_the_root(aim: brson.DataTree) -> None:
    flux = aim.select("AimConstraintBackend/Flux")
    assert flux.path == "Holder/AimConstraintBackend/Flux"
    assert aim.select("Holder/AimConstraintBackend/Flux") is not None
    assert aim.select("AimConstraintBackend/Flux/AimConstraintBackend (44)").parent == flux


def test_unique_id_prefixes(aim: brson.DataTree) -> None:
    assert aim.select("0000006f").path == "Holder/AimConstraintBackend/Flux"
    assert aim.select("0000006F-0000").path == "Holder/AimConstraintBackend/Flux"
    with pytest.raises(SelectorError, match=r"'0000' matches \d+ slots: Holder \(0000"):
        aim.select("0000")
    with pytest.raises(SelectorError, match="no slot matches 'beef'"):
        aim.select("beef")  # no digit: a word, never an ID's start


def test_exact_matches_win_and_ties_stay_errors(samples_dir: Path) -> None:
    """A name stored as typed wins over a rich-text name that shows the same; two slots
    matching within one tier are refused with both listed, whatever a later tier says."""
    doc = bson.decode(brson.load(samples_dir / "mar_AimConstraint.pg.brson").to_bson())
    children = doc["Object"]["Children"]
    template = {k: v for k, v in children[0].items() if k != "Children"}

    def slot(name: str, number: int) -> dict[str, object]:
        made = dict(template, Children=[], Name={"ID": f"n{number}", "Data": name})
        made["ID"] = f"{number:08x}-1111-1111-1111-111111111111"
        return made

    children[0]["Children"] = [slot("<b>Twin</b>", 1), slot("Twin", 2), slot("<i>Pair</i>", 3)]
    children[0]["Children"] += [slot("<color=red>Pair</color>", 4)]
    tree = brson.loads(bson.encode(doc), name="t.bson")
    assert tree.select("Twin").id.startswith("00000002")
    assert tree.select("<b>Twin</b>").id.startswith("00000001")
    with pytest.raises(SelectorError, match=r"'Pair' matches 2 slots: .*<i>Pair</i>.*<color"):
        tree.select("Pair")
    assert tree.select("AimConstraintBackend/<i>Pair</i>").id.startswith("00000003")


def test_only_rich_text_tags_are_removed() -> None:
    assert plain("<color=#6700FF>Get Profile Icon</color> - (9 Nodes)") == (
        "Get Profile Icon - (9 Nodes)"
    )
    assert plain("<b><size=120%>A</size></b> <#ff0000>B</color>") == "A B"
    assert plain('<sprite name="x">C<br>') == "C"
    assert plain("ValueInput<float>") == "ValueInput<float>"
    assert plain("<bold>x</bold>") == "<bold>x</bold>"
    assert plain("A<" * 200 + "x" + ">" * 200) == "A<" * 200 + "x" + ">" * 200


def test_cli_extract_by_a_shown_name(
    samples_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "worn.brson"
    package = str(samples_dir / "mar_coresys.resonitepackage")
    args = ["extract", package, "--slot", "Check Avatar Worn - (11 Nodes)", "-o", str(out)]
    assert main(args) == 0, capsys.readouterr().err
    assert brson.load(out).root.name == "<color=#FF0000>Check Avatar Worn</color> - (11 Nodes)"


def test_the_issue_examples(samples_dir: Path) -> None:
    tree = brson.load(samples_dir / "orange3134_loading_standin.resonitepackage")
    icon = tree.select("Get Profile Icon - (9 Nodes)")
    assert icon.name == "<color=#6700FF>Get Profile Icon</color> - (9 Nodes)"
    assert tree.select("Visual/UserIconMat").path == (
        "LoadingStandin - Thumbnail v1.3.1/Visual/UserIconMat"
    )
    assert tree.select("000000af") is icon
