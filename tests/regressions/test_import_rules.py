"""How brson's modules may import each other, beyond the layers contract (pyproject.toml):
no module-level import circle (scripts/check_import_cycles.py, run by ``make lint``), and no
import by name that reaches another layer (import-linter cannot see those)."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import brson
import brson.model as model_package
from brson.cli import root
from brson.scan import deps

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CHECK = PROJECT_ROOT / "scripts" / "check_import_cycles.py"


def run_check(package: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(CHECK), str(package)], capture_output=True, text=True, check=False
    )


def write_package(root_dir: Path, files: dict[str, str]) -> Path:
    package = root_dir / "pkg"
    for name, text in files.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return package


def test_brson_has_no_module_level_cycle() -> None:
    result = run_check(PROJECT_ROOT / "brson")
    assert result.returncode == 0, result.stderr
    assert "no module-level import cycle" in result.stdout


def test_a_cycle_is_reported(tmp_path: Path) -> None:
    package = write_package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from pkg.b import thing\n",
            "b.py": "from . import c\nthing = 1\n",
            "c.py": "try:\n    import pkg.a\nexcept ImportError:\n    pass\n",
            "sub/__init__.py": "from pkg.sub.d import x\n",
            "sub/d.py": "from pkg.sub import y\nx = 1\n",
        },
    )
    result = run_check(package)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert lines == [
        "import cycle among 3 modules: pkg.a -> pkg.b; pkg.b -> pkg.c; pkg.c -> pkg.a",
        "import cycle among 2 modules: pkg.sub -> pkg.sub.d; pkg.sub.d -> pkg.sub",
    ]


def test_imports_that_do_not_run_at_import_time_are_not_edges(tmp_path: Path) -> None:
    """Inside a function (runs after both modules loaded), under TYPE_CHECKING (never runs),
    a submodule reaching its package only as the parent of what it imports."""
    package = write_package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "import pkg.b\n",
            "b.py": "def f():\n    import pkg.a\n",
            "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.d\n",
            "d.py": "import typing\nif typing.TYPE_CHECKING:\n    pass\nelse:\n    x = 1\n"
            "from pkg.c import *\n",
            "sub/__init__.py": "from pkg.sub import e\n",
            "sub/e.py": "from pkg.sub.f import z\n",
            "sub/f.py": "z = 1\n",
        },
    )
    result = run_check(package)
    assert result.returncode == 0, result.stderr


def _calls(path: Path, name: str) -> list[ast.Call]:
    """Calls of ``name`` (``x.name(...)`` or ``name(...)``) in the module at ``path``."""
    return [
        node
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and name in (getattr(node.func, "attr", None), getattr(node.func, "id", None))
    ]


def test_imports_by_name_stay_in_their_package() -> None:
    """Editing is the model's own: no module imports another layer by name.  What is left:
    optional extras (scan), the command table (cli: its own modules), the PEP 562 lazy
    exports of ``brson`` and ``brson.model`` (their own names, so ``import brson`` stays
    light), and the accelerator loader (its own compiled modules, which may not be built)."""
    modules = sorted((PROJECT_ROOT / "brson").rglob("*.py"))
    users = {
        str(path.relative_to(PROJECT_ROOT)) for path in modules if _calls(path, "import_module")
    }
    assert users == {
        "brson/__init__.py",
        "brson/_speedups/__init__.py",
        "brson/model/__init__.py",
        "brson/cli/root.py",
        "brson/scan/deps.py",
    }
    assert {m.split(".")[1] for m in brson._EXPORTS.values()} <= {
        "api",
        "codecs",
        "container",
        "errors",
        "fileio",
        "model",
    }
    assert all(m.startswith("brson.model.") for m in model_package._EXPORTS.values())
    assert all(m.startswith("brson.cli.") for m in root.COMMANDS.values())
    extras = [
        call.args[0]
        for path in modules
        if path.parent.name == "scan"
        for call in _calls(path, "need")
    ]
    assert extras and all(isinstance(a, ast.Constant) for a in extras)
    assert {a.value for a in extras if isinstance(a, ast.Constant)} <= set(deps._EXTRAS)
