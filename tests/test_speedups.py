"""brson._speedups: one package for every C accelerator, each with its stub, and one switch."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import brson._speedups as speedups
from tests.differential import check_built

PACKAGE = Path(speedups.__file__).parent
ROOT = PACKAGE.parents[1]
SOURCES = sorted(PACKAGE.glob("_*.c"))


def test_every_module_has_a_shipped_stub_and_is_built() -> None:
    assert SOURCES
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    shipped = data["package-data"]["brson"]
    for source in SOURCES:
        stub = source.with_suffix(".pyi")
        assert stub.is_file(), stub
        relative = stub.relative_to(PACKAGE.parent).as_posix()
        assert any(fnmatch(relative, pattern) for pattern in shipped), relative
        module = speedups.built(source.stem)
        check_built(
            module, speedups.load(source.stem) is not None, f"brson._speedups.{source.stem}"
        )


def test_the_switch_turns_every_module_off() -> None:
    code = (
        "import brson._speedups as s, sys; "
        "from pathlib import Path; "
        "names = [p.stem for p in Path(s.__file__).parent.glob('_*.c')]; "
        "sys.exit(any(s.load(n) is not None for n in names) or not s.PURE_PYTHON)"
    )
    env = {**os.environ, "BRSON_PURE_PYTHON": "1"}
    assert subprocess.run([sys.executable, "-c", code], env=env, check=False).returncode == 0
