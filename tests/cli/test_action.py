"""The GitHub Action (``action.yml``): valid against SchemaStore's published schema for actions,
and its shell steps run as the runner would run them, on a real sample (issue 18).

The ``uses:`` steps (actions/setup-python, github/codeql-action/upload-sarif) run on GitHub
only; here Python is the test's own, the install step really builds and installs brson from
a copy of the action's folder into a fresh environment (it needs the package index, as
``make`` does), and the SARIF file handed to the upload step is checked against the official
SARIF 2.1.0 schema.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

# Installs brson into a fresh environment as the runner would: once, on one xdist worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("action")]

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
SAMPLE = ROOT / "fixtures" / "real" / "orange3134_loading_standin.brson"
BROKEN = ROOT / "fixtures" / "validate" / "BR401_duplicate_id.brson"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def action() -> dict[str, Any]:
    loaded = yaml.safe_load((ROOT / "action.yml").read_text())
    assert isinstance(loaded, dict)
    return loaded


def test_action_matches_the_published_schema() -> None:
    schema = json.loads((DATA / "github-action.schema.json").read_text())
    assert schema["$id"] == "https://json.schemastore.org/github-action.json"
    validator = jsonschema.Draft7Validator(schema)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(action())]
    assert not errors, errors


def test_action_shape() -> None:
    """Composite: set up Python, install brson from the action's own folder, validate with
    annotations and SARIF, upload the SARIF even when validation failed."""
    spec = action()
    assert spec["runs"]["using"] == "composite"
    steps = spec["runs"]["steps"]
    assert steps[0]["uses"].startswith("actions/setup-python@")
    assert '"$GITHUB_ACTION_PATH"' in steps[1]["run"]
    validate = steps[2]
    assert "--format github" in validate["run"] and '--sarif "$BRSON_SARIF"' in validate["run"]
    upload = steps[3]
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert upload["if"].startswith("${{ always() &&")
    assert upload["with"]["sarif_file"] == "${{ steps.validate.outputs.sarif-file }}"
    for step in steps:
        # Inputs reach scripts through env, never pasted in (script injection).
        assert "${{" not in step.get("run", "")


def _evaluate(text: str, inputs: dict[str, str], action_path: Path) -> str:
    """The expressions the action's env uses: ``inputs.NAME`` and ``github.action_path``."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name.startswith("inputs."):
            return inputs[name.removeprefix("inputs.")]
        if name == "github.action_path":
            return str(action_path)
        raise AssertionError(f"expression the test cannot evaluate: {name}")

    return EXPRESSION.sub(value, text)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A fresh environment, and the action's folder (a copy of what a checkout of the
    action holds that pip needs), after the action's install step ran in it."""
    base = tmp_path_factory.mktemp("action")
    action_path = base / "action"
    action_path.mkdir()
    for name in ("pyproject.toml", "README.md", "action.yml"):
        shutil.copy(ROOT / name, action_path / name)
    shutil.copytree(
        ROOT / "brson", action_path / "brson", ignore=shutil.ignore_patterns("__pycache__")
    )
    env_dir = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True)
    # pip comes from the test environment through a .pth line (a venv without pip starts in a
    # second, not ten); what pip does not count as installed there, it fetches from the
    # package index (or its cache), as it does on GitHub.
    site = Path(
        subprocess.run(
            [
                str(env_dir / "bin" / "python"),
                "-c",
                "import sysconfig; print(sysconfig.get_path('purelib'))",
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    (site / "test-deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    install = action()["runs"]["steps"][1]
    done = _run_step(install, env_dir, action_path, base, {})
    assert done.returncode == 0, done.stdout + done.stderr
    return env_dir, action_path


def _run_step(
    step: dict[str, Any],
    env_dir: Path,
    action_path: Path,
    workspace: Path,
    inputs: dict[str, str],
    output: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    defaults = {k: str(v.get("default", "")) for k, v in action()["inputs"].items()}
    values = {**defaults, **inputs}
    env = {
        "PATH": f"{env_dir / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "HOME": os.environ.get("HOME", str(workspace)),
        "GITHUB_ACTION_PATH": str(action_path),
        "GITHUB_OUTPUT": str(output or workspace / "github_output"),
        "GITHUB_WORKSPACE": str(workspace),
        "CI": "true",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    for key in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_CACHE_DIR", "XDG_CACHE_HOME"):
        if key in os.environ:
            env[key] = os.environ[key]
    for key, text in step.get("env", {}).items():
        env[key] = _evaluate(str(text), values, action_path)
    assert step["shell"] == "bash"
    # The runner's bash invocation for `shell: bash`.
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_install_step_installs_brson(installed: tuple[Path, Path]) -> None:
    env_dir, _ = installed
    where = subprocess.run(
        [str(env_dir / "bin" / "python"), "-c", "import brson; print(brson.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        cwd=env_dir,  # not the checkout, which python -c would import from
    ).stdout
    assert where.startswith(str(env_dir)), where  # the installed copy, not the checkout
    assert (env_dir / "bin" / "brson").exists()


def _outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines())


@pytest.mark.parametrize(
    ("files", "args", "code", "annotation"),
    [
        ([SAMPLE], "", 0, "::notice file=worlds/"),
        ([SAMPLE], "--min-severity warning", 0, None),
        ([SAMPLE, BROKEN], "--strict", 1, "::error file=worlds/"),
    ],
)
def test_validate_step_on_a_sample(
    installed: tuple[Path, Path],
    tmp_path: Path,
    files: list[Path],
    args: str,
    code: int,
    annotation: str | None,
) -> None:
    env_dir, action_path = installed
    worlds = tmp_path / "worlds" / "sub"
    worlds.mkdir(parents=True)
    for file in files:
        shutil.copy(file, worlds / file.name)
    step = action()["runs"]["steps"][2]
    output = tmp_path / "github_output"
    inputs = {"paths": "worlds", "args": args, "sarif-file": "out/brson.sarif"}
    (tmp_path / "out").mkdir()
    done = _run_step(step, env_dir, action_path, tmp_path, inputs, output)
    assert done.returncode == code, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    if annotation is None:
        assert not any(line.startswith("::") for line in lines)
    else:
        assert lines[0].startswith(annotation)
    assert lines[-1].startswith(f"brson validate: {len(files)} file(s)")
    assert _outputs(output) == {"sarif-file": "out/brson.sarif", "exit-code": str(code)}
    log = json.loads((tmp_path / "out" / "brson.sarif").read_text())
    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text())
    assert not list(jsonschema.Draft7Validator(schema).iter_errors(log))
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in log["runs"][0]["results"]
    }
    assert all(uri.startswith("worlds/sub/") for uri in uris)  # relative to the workspace


def test_validate_step_glob_and_a_usage_error(installed: tuple[Path, Path], tmp_path: Path) -> None:
    env_dir, action_path = installed
    (tmp_path / "w").mkdir()
    shutil.copy(SAMPLE, tmp_path / "w" / "a.brson")
    step = action()["runs"]["steps"][2]
    output = tmp_path / "github_output"
    done = _run_step(step, env_dir, action_path, tmp_path, {"paths": "w/*.brson\nw"}, output)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("brson validate: 1 file(s)")  # once
    # A glob matching nothing: exit 2, no SARIF, so the upload step is skipped.
    output.unlink()
    done = _run_step(step, env_dir, action_path, tmp_path, {"paths": "nothing/*.brson"}, output)
    assert done.returncode == 2 and "no file matches" in done.stderr
    assert _outputs(output) == {"exit-code": "2"}


def test_readme_workflow_uses_the_action_as_it_is() -> None:
    text = (ROOT / "README.md").read_text()
    start = text.index("### The GitHub Action")
    block = text[text.index("```yaml\n", start) + 8 :]
    workflow = yaml.safe_load(block[: block.index("```")])
    assert workflow["permissions"]["security-events"] == "write"
    steps = workflow["jobs"]["brson"]["steps"]
    ours = next(step for step in steps if "brson@" in step.get("uses", ""))
    assert set(ours["with"]) <= set(action()["inputs"])
    assert steps[0]["uses"].startswith("actions/checkout@")
