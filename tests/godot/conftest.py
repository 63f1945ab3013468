"""Session fixtures that run each real engine once and hand the results to the tests.

One run per engine version does everything (write engine-made values, decode and re-encode the
inputs brson made), because starting the engine dominates the cost.  Godot 3 is required in CI
(``CI=true``): a missing engine fails instead of skipping.  Godot 4 runs only when
``BRSON_GODOT4`` points at a binary or the wrapper from ``scripts/get-godot4.sh``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from brson.godot import dumps

from .cases import APPROX3, APPROX4, CASES3, CASES4, crafted, full_object, random_values
from .engine import EngineRun, find_godot3, find_godot4, require_godot, run_script

RANDOM_COUNT = 300
RANDOM_SEED = {3: 3_2_3, 4: 4_6_3}


@dataclass
class EngineSession:
    """Inputs brson wrote for one engine run, and what the engine wrote back."""

    major: int
    run: EngineRun
    inputs: dict[str, bytes] = field(default_factory=dict)
    random: dict[str, Any] = field(default_factory=dict)

    def engine(self, name: str) -> bytes:
        """Bytes the engine encoded itself (``e_<name>``)."""
        return self.run.read(f"e_{name}.bin")

    def reencoded(self, name: str) -> bytes:
        """The engine's var_to_bytes(bytes_to_var(input <name>))."""
        return self.run.read(f"o_{name}.bin")


def _script(major: int, cases: list[tuple[str, str, Any]]) -> str:
    enc = "var2bytes" if major == 3 else "var_to_bytes"
    approx = APPROX3 if major == 3 else APPROX4
    lines = [f'_save("e_{name}.bin", {enc}({expr}))' for name, expr, _ in cases]
    lines += [f'_save("e_{name}.bin", {enc}({expr}))' for name, expr in approx.items()]
    if major == 3:
        lines += [
            "var node = Node.new()",
            '_save("e_object_node.bin", var2bytes(node))',
            '_save("e_object_node_id.bin", var2bytes(node.get_instance_id()))',
            "node.free()",
            '_save("e_object_freed.bin", var2bytes(node))',
            '_save("e_object_freed_full.bin", var2bytes(node, true))',
            '_save("e_object_full.bin", var2bytes(Reference.new(), true))',
            'for line in _text("manifest.txt").split("\\n", false):',
            '\tvar parts = line.split(" ", false)',
            "\tvar objects = parts.size() > 1",
            # bytes2var raises a script error on bad data, which hangs 3.x; File.get_var
            # runs the same decode_variant but only logs the failure and returns null.
            "\tvar f = File.new()",
            '\tif f.open(OUT + "i_" + parts[0] + ".var", File.READ) == OK:',
            "\t\tvar value = f.get_var(objects)",
            "\t\tf.close()",
            '\t\t_save("o_" + parts[0] + ".bin", var2bytes(value, objects))',
        ]
    else:
        lines += [
            "var node = Node.new()",
            '_save("e_object_node.bin", var_to_bytes(node))',
            '_save("e_object_node_id.bin", var_to_bytes(node.get_instance_id()))',
            '_save("e_signal_node.bin", var_to_bytes(Signal(node, &"ready")))',
            "node.free()",
            '_save("e_object_freed.bin", var_to_bytes(node))',
            '_save("e_object_freed_full.bin", var_to_bytes_with_objects(node))',
            '_save("e_object_full.bin", var_to_bytes_with_objects(RefCounted.new()))',
            'for line in _text("manifest.txt").split("\\n", false):',
            '\tvar parts = line.split(" ", false)',
            '\tvar data = _load("i_" + parts[0] + ".bin")',
            "\tif parts.size() > 1:",
            '\t\t_save("o_" + parts[0] + ".bin", '
            "var_to_bytes_with_objects(bytes_to_var_with_objects(data)))",
            "\telse:",
            '\t\t_save("o_" + parts[0] + ".bin", var_to_bytes(bytes_to_var(data)))',
        ]
    return "\n".join(lines)


def run_session(binary: str, major: int, where: Path) -> EngineSession:
    cases = CASES3 if major == 3 else CASES4
    inputs: dict[str, bytes] = {}
    manifest: list[str] = []
    for name, _, value in cases:
        inputs[f"py_{name}"] = dumps(value, major)
        manifest.append(f"py_{name}")
    inputs["py_full_object"] = dumps(full_object(major), major, full_objects=True)
    manifest.append("py_full_object objects")
    randoms = {
        f"rand_{i}": v for i, v in enumerate(random_values(major, RANDOM_COUNT, RANDOM_SEED[major]))
    }
    for name, value in randoms.items():
        inputs[name] = dumps(value, major)
        manifest.append(name)
    for case in crafted(major):
        inputs[f"c_{case.name}"] = case.data
        manifest.append(f"c_{case.name}" + (" objects" if case.objects else ""))
    if major == 3:  # File.get_var wants a uint32 length first
        files = {f"i_{n}.var": len(d).to_bytes(4, "little") + d for n, d in inputs.items()}
    else:
        files = {f"i_{name}.bin": data for name, data in inputs.items()}
    files["manifest.txt"] = "\n".join(manifest).encode()
    run = run_script(binary, major, _script(major, cases), files, keep_in=where)
    if not run.finished:
        pytest.fail(f"Godot {major} did not finish the probe script\n{run.explain()}")
    return EngineSession(major, run, inputs, randoms)


@pytest.fixture(scope="session")
def godot3(tmp_path_factory: pytest.TempPathFactory) -> EngineSession:
    return run_session(require_godot(3), 3, tmp_path_factory.mktemp("godot3"))


@pytest.fixture(scope="session")
def godot4(tmp_path_factory: pytest.TempPathFactory) -> EngineSession:
    return run_session(require_godot(4), 4, tmp_path_factory.mktemp("godot4"))


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Name the engines in the log header, so a CI log shows which ones the tests used."""
    return [
        f"godot3 engine: {find_godot3() or 'not found'}",
        f"godot4 engine: {find_godot4() or 'not found (BRSON_GODOT4 unset)'}",
    ]
