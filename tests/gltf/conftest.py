"""Exports shared by the glTF tests: every real sample and the generated fixtures, made once."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from brson import api
from brson.assets import AssetStore
from brson.gltf import GltfReport, export_gltf
from brson.package import SUFFIX, load_package
from tests.gltf.tools import blender_each, godot4_each

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT.parent / "shared" / "samples"
FIXTURES = ROOT / "fixtures" / "gltf"
AVATAR = FIXTURES / "test_avatar.resonitepackage"
HANDEDNESS = FIXTURES / "handedness.resonitepackage"


#: File kinds the samples folder holds that brson reads.
ARCHIVES = (".brson", ".7zbson", ".lz4bson", ".bson", SUFFIX)


def inputs() -> list[Path]:
    """Every sample archive and package, and the generated glTF fixtures."""
    found = sorted(p for p in SAMPLES.glob("*") if p.is_file() and p.suffix in ARCHIVES)
    return [*found, AVATAR, HANDEDNESS]


@dataclass
class Exported:
    source: Path
    glb: Path
    report: GltfReport


def export(source: Path, out_dir: Path, suffix: str = ".glb") -> Exported:
    package = load_package(source) if source.name.endswith(SUFFIX) else None
    tree = package.tree if package is not None else api.load(source)
    document, report = export_gltf(tree, assets=AssetStore(package))
    target = out_dir / (source.name + suffix)
    document.save(target)
    return Exported(source, target, report)


@pytest.fixture(scope="session")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Exported]:
    out = tmp_path_factory.mktemp("gltf")
    return {p.name: export(p, out) for p in inputs()}


@pytest.fixture(scope="session")
def blender_imports(exported: dict[str, Exported]) -> dict[str, dict[str, Any]]:
    """Blender's counts for every export, from one Blender run (see tools.blender_each)."""
    found = blender_each([e.glb for e in exported.values()])
    return {name: found[e.glb] for name, e in exported.items()}


@pytest.fixture(scope="session")
def godot4_imports(exported: dict[str, Exported]) -> dict[str, dict[str, Any]]:
    """Godot 4's import of every export, from one engine run (see tools.godot4_each)."""
    found = godot4_each([e.glb for e in exported.values()])
    return {name: found[e.glb] for name, e in exported.items()}


#: Which real tool a glTF test runs, by a word in its name.
_TOOLS = ("validator", "blender", "godot4", "godot3")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Count the glTF tests that ran each real tool, so a CI log shows they ran, not skipped."""
    counts: dict[str, dict[str, int]] = {}
    for outcome in ("passed", "failed", "skipped", "error"):
        for report in terminalreporter.stats.get(outcome, []):
            nodeid: str = getattr(report, "nodeid", "")
            if not nodeid.startswith("tests/gltf/") or (
                outcome == "passed" and report.when != "call"
            ):
                continue
            name = nodeid.partition("::")[2].partition("[")[0]
            for tool in _TOOLS:
                if tool in name:
                    per = counts.setdefault(tool, {})
                    per[outcome] = per.get(outcome, 0) + 1
    if counts:
        parts = [
            f"{tool} " + ", ".join(f"{n} {o}" for o, n in sorted(per.items()))
            for tool, per in sorted(counts.items())
        ]
        terminalreporter.write_line("real glTF tool tests: " + "; ".join(parts))
