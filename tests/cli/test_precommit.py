"""The README's pre-commit block, run as written by the real pre-commit (issue 11 defect 9:
the documented snippet pinned a tag that does not exist)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the real pre-commit installs its hook environment

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "fixtures" / "real" / "orange3134_loading_standin.brson"
BROKEN = ROOT / "fixtures" / "validate" / "BR401_duplicate_id.brson"


def _readme_block() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("As a [pre-commit](https://pre-commit.com) hook")
    block = re.search(r"```yaml\n(.*?)```", text[start:], re.DOTALL)
    assert block is not None
    return block.group(1)


def _pre_commit() -> str:
    found = shutil.which("pre-commit", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip("pre-commit is not installed (it is in the test extra)")
    return found


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def test_readme_pre_commit_block_runs(tmp_path: Path) -> None:
    tool = _pre_commit()
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / ".pre-commit-config.yaml").write_text(_readme_block())
    shutil.copy(SAMPLE, repo / "good.brson")
    _git(repo, "add", ".")
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PRE_COMMIT_HOME": str(tmp_path / "cache"),
    }
    run = [tool, "run", "--all-files"]
    ok = subprocess.run(run, cwd=repo, env=env, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "brson validate" in ok.stdout and "Passed" in ok.stdout
    shutil.copy(BROKEN, repo / "bad.brson")
    _git(repo, "add", ".")
    bad = subprocess.run(run, cwd=repo, env=env, capture_output=True, text=True)
    assert bad.returncode == 1 and "BR401" in bad.stdout, bad.stdout + bad.stderr
