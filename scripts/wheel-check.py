"""The install as a user gets it (`make wheel-check`, run by `make test`).

Builds the sdist and the wheel (as `python -m build` does, the wheel from the sdist, both in
one isolated build environment), checks that both carry the viewer's three.js bundle (the
committed bytes), every extension's stub and, in the sdist, every C source; then, in a clean
venv whose PATH has no C compiler, npm or node:

1. installs the sdist with the `scan` and `gltf` extras: no compiler, so no C extension is
   built nor loaded (checked), and every command runs on brson's pure-Python paths;
2. installs the built wheel in another (with its C extensions, when this machine compiled
   them) and runs every command again; the outputs of both runs must be byte-identical.

brson's dependencies are installed once, in a venv of their own that both clean venvs see
through a .pth file: pip still resolves each install's requirements (its own metadata's, the
extras' included) against what it finds, and installs brson itself into each venv, where it
must import from.

Each venv's commands run through the CLI's entry point in one process of that venv (a process
a command was most of the cost); ``python -m brson`` and the console script ``brson`` (the
viewer's server) run as commands of their own.

Every command of the README's list runs on the real samples (../shared/samples) and fixtures,
and each output is checked: archives read back, round trips byte-identical, glTF binaries
parse, the --html page inlines the bundle, the served page serves it. Usage:
python scripts/wheel-check.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import tomllib
import urllib.request
import zipfile
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT.parent / "shared" / "samples"
FIXTURES = ROOT / "fixtures"
BUNDLE = "brson/view/static/vendor/three.bundle.min.js"
#: What a user's PATH must not offer for the install to prove it needs none of them.
HIDDEN_TOOLS = ("cc", "gcc", "clang", "c++", "g++", "npm", "npx", "node")
#: The files every sdist and wheel carries, besides the Python modules.
PACKAGE_DATA = sorted(
    [BUNDLE, "brson/py.typed"]
    + [p.relative_to(ROOT).as_posix() for p in (ROOT / "brson").rglob("*.pyi")]
)
#: What only the sdist carries: what a compiler needs to build the accelerators.
C_SOURCES = sorted(
    p.relative_to(ROOT).as_posix()
    for pattern in ("*.c", "*.h")
    for p in (ROOT / "brson").rglob(pattern)
    if "node_modules" not in p.parts
)
EXTENSION_SUFFIXES = (".so", ".pyd")
#: The dependencies' wheels, downloaded once: installs from it are offline and fast.
WHEELHOUSE = Path.home() / ".cache" / "brson" / "wheelhouse"
#: The dependencies installed from it, kept (:func:`shared_dependencies`).
DEPENDENCIES = Path.home() / ".cache" / "brson" / "wheel-check-deps"
FILLING = threading.Lock()
#: What building the sdist needs (pyproject's build-system table).
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
BUILD_REQUIRES: list[str] = PYPROJECT["build-system"]["requires"]
#: What ``brson[scan,gltf]`` needs: installed once, in the venv both installs share.
REQUIREMENTS: list[str] = [
    *PYPROJECT["project"]["dependencies"],
    *(
        r
        for extra in ("scan", "gltf")
        for r in PYPROJECT["project"]["optional-dependencies"][extra]
    ),
]


class CheckError(Exception):
    """A check failed: the message says which and why."""


def check(condition: object, message: str) -> None:
    if not condition:
        raise CheckError(message)


def build_both(dist: Path, into: Path) -> tuple[Path, Path, Path]:
    """The sdist of the checkout, then the wheel of the sdist's unpacked tree, as ``python -m
    build`` makes them, but in one isolated build environment (build-system.requires
    installed once, not once a distribution): (sdist, its tree in *into*, wheel)."""
    from build import BuildBackendException, BuildException, ProjectBuilder
    from build.env import DefaultIsolatedEnv

    def quiet(
        cmd: Sequence[str], cwd: str | None = None, extra_environ: Mapping[str, str] | None = None
    ) -> None:
        """The backend's hooks, their output shown only when one fails. The C is compiled
        with no debug information (-g0, after the interpreter's own -g): the check needs the
        extensions' code, which -g does not change, and DWARF was a fifth of the compiles."""
        env = {**os.environ, **(extra_environ or {})}
        env["CFLAGS"] = f"{env.get('CFLAGS', '')} -g0".strip()
        done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
        check(done.returncode == 0, f"the build backend failed:\n{done.stdout}{done.stderr}")

    try:
        with DefaultIsolatedEnv() as env:
            sdist_builder = ProjectBuilder.from_isolated_env(env, ROOT, runner=quiet)
            env.install(sdist_builder.build_system_requires)
            env.install(sdist_builder.get_requires_for_build("sdist"))
            sdist = Path(sdist_builder.build("sdist", dist))
            source = check_sdist(sdist, into)
            wheel_builder = ProjectBuilder.from_isolated_env(env, source, runner=quiet)
            env.install(wheel_builder.get_requires_for_build("wheel"))
            wheel = Path(wheel_builder.build("wheel", dist))
    except (BuildException, BuildBackendException) as exc:
        raise CheckError(f"the build failed: {exc}") from exc
    return sdist, source, wheel


def check_sdist(sdist: Path, into: Path) -> Path:
    """The sdist carries the package data (the bundle byte for byte) and the C sources, and
    no npm tree; returns the source tree it unpacks to in *into*."""
    bundle = (ROOT / BUNDLE).read_bytes()
    with tarfile.open(sdist) as tf:
        prefix = sdist.name.removesuffix(".tar.gz") + "/"
        members = {m.name.removeprefix(prefix): m for m in tf.getmembers()}
        for name in PACKAGE_DATA + C_SOURCES:
            check(name in members, f"{sdist.name} lacks {name}")
        data = tf.extractfile(members[BUNDLE])
        check(data is not None and data.read() == bundle, f"{sdist.name}'s bundle differs")
        stray = [n for n in members if "node_modules" in n or n.startswith("brson/view/js")]
        check(not stray, f"{sdist.name} carries the npm tree: {stray[:3]}")
        tf.extractall(into, filter="data")
    return into / prefix


def check_wheel(wheel: Path) -> list[str]:
    """The wheel carries the package data (the bundle byte for byte); returns its compiled
    extensions."""
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        for name in PACKAGE_DATA:
            check(name in names, f"{wheel.name} lacks {name}")
        check(zf.read(BUNDLE) == (ROOT / BUNDLE).read_bytes(), f"{wheel.name}'s bundle differs")
        extensions = sorted(n for n in names if n.endswith(EXTENSION_SUFFIXES))
    # setup.py's extensions are optional (a failed compile drops one, and pip goes on): on
    # this machine, which compiles them, the wheel must hold one for each C source
    sources = sorted(s.removesuffix(".c") for s in C_SOURCES if s.endswith(".c"))
    stems = sorted(n.split(".")[0] for n in extensions)
    check(stems == sources, f"{wheel.name} holds the extensions {stems}, not {sources}")
    return extensions


class Venv:
    """A clean venv run with a PATH of its own bin folder alone: no compiler, npm or node."""

    def __init__(self, path: Path, deps: Venv | None = None, create: bool = True) -> None:
        # No pip of its own (ensurepip cost 7 s of CPU a venv): this interpreter's pip
        # installs into it (``pip --python``).
        if create:
            subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
        self.bin = path / "bin"
        version = f"python{sys.version_info.major}.{sys.version_info.minor}"
        self.site = path / "lib" / version / "site-packages"
        if deps is not None:
            # appended to sys.path after this venv's own site-packages: brson installed
            # here is the one imported, the dependencies come from there
            (self.site / "dependencies.pth").write_text(f"{deps.site}\n")
        self.runner: subprocess.Popen[str] | None = None
        #: Commands run here, never in the repository, whose brson/ would shadow the install.
        self.cwd = path
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("BRSON_", "PYTHON", "VIRTUAL_ENV", "CC", "CXX", "LDSHARED"))
        }
        self.env["PATH"] = str(self.bin)
        for tool in HIDDEN_TOOLS:
            found = shutil.which(tool, path=self.env["PATH"])
            check(found is None, f"the clean venv's PATH offers {tool}: {found}")

    def run(self, *args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(a) for a in args],
            env=self.env,
            cwd=cwd or self.cwd,
            capture_output=True,
            text=True,
        )

    def install(self, *requirements: str) -> None:
        """pip install from the wheelhouse alone, filling it from the index first when it
        lacks something (a first run, a new dependency); ``--no-compile``: byte-compiling
        numpy and pyarrow would be most of the cost, and proves nothing about brson."""
        pip = (sys.executable, "-m", "pip", "--python", self.bin / "python")
        quiet = ("-q", "--find-links", WHEELHOUSE)
        install: tuple[str | Path, ...] = (*pip, "install", *quiet, "--no-compile", *requirements)
        if self.run(*install, "--no-index").returncode == 0:
            return
        with FILLING:  # one download at a time into the shared folder
            print(f"wheel-check: filling {WHEELHOUSE} for {requirements}", flush=True)
            fill = self.run(
                *pip, "download", *quiet, "-d", WHEELHOUSE, *requirements, *BUILD_REQUIRES
            )
            check(fill.returncode == 0, f"pip download {requirements}:\n{fill.stderr}")
            for stale in WHEELHOUSE.glob("brson-*"):
                stale.unlink()
        done = self.run(*install, "--no-index")
        check(done.returncode == 0, f"pip install {requirements}:\n{done.stdout}{done.stderr}")

    def brson(self, args: Sequence[str]) -> tuple[int, str, str]:
        """``brson ARGS`` through the installed CLI's entry point (``brson.cli.app.main``) in
        one long-lived process of this venv (:data:`RUNNER`): (exit code, stdout, stderr).
        A new process per command was two thirds of the check's CPU, all of it starting
        Python and importing brson again; the console script itself is run by
        :meth:`Suite.view_server` and ``python -m brson`` by the version check."""
        if self.runner is None:
            self.runner = subprocess.Popen(
                [str(self.bin / "python"), "-c", RUNNER],
                env=self.env,
                cwd=self.cwd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
        assert self.runner.stdin is not None and self.runner.stdout is not None
        self.runner.stdin.write(json.dumps(list(args)) + "\n")
        self.runner.stdin.flush()
        line = self.runner.stdout.readline()
        check(line, f"the command runner died at brson {' '.join(args)}")
        code, out, err = json.loads(line)
        return int(code), str(out), str(err)

    def close(self) -> None:
        if self.runner is not None:
            assert self.runner.stdin is not None
            self.runner.stdin.close()
            self.runner.wait(timeout=60)
            self.runner = None

    def extensions(self) -> tuple[list[str], list[str]]:
        """The compiled modules of the installed brson, and the accelerators it loads (each
        ``brson._speedups`` stub's module that imports)."""
        done = self.run(self.bin / "python", "-c", LOADED)
        check(done.returncode == 0, f"import brson failed: {done.stderr}")
        where, loaded = done.stdout.splitlines()
        package = Path(where)
        check(
            self.bin.parent in package.parents,
            f"brson imports from {package}, not the venv",
        )
        files = sorted(
            p.relative_to(package.parent).as_posix()
            for p in package.rglob("*")
            if p.name.endswith(EXTENSION_SUFFIXES)
        )
        return files, json.loads(loaded)


#: Where brson imports from, and which of its accelerators load.
LOADED = """
import json, pathlib, brson, brson._speedups as speedups
folder = pathlib.Path(speedups.__file__).parent
print(pathlib.Path(brson.__file__).parent)
print(json.dumps([s.stem for s in sorted(folder.glob("_*.pyi")) if speedups.built(s.stem)]))
"""


#: The command runner: one JSON argument list a line on stdin, ``[code, stdout, stderr]`` a
#: line back; each command runs in a working folder given as its first element, its output
#: streams captured as bytes (commands write binary to stdout too), an escaping exception
#: reported as a traceback on its stderr (which :meth:`Suite.brson` fails on).
RUNNER = """
import io, json, os, sys, traceback
from brson.cli.app import main
protocol = sys.stdout
for line in sys.stdin:
    cwd, *args = json.loads(line)
    os.chdir(cwd)
    out, err = io.TextIOWrapper(io.BytesIO()), io.TextIOWrapper(io.BytesIO())
    sys.stdout, sys.stderr = out, err
    try:
        code = main(args)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        traceback.print_exc()
        code = 99
    finally:
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    texts = []
    for stream in (out, err):
        stream.flush()
        texts.append(stream.buffer.getvalue().decode(errors="replace"))
    protocol.write(json.dumps([code, *texts]) + "\\n")
    protocol.flush()
"""


def shared_dependencies() -> tuple[Venv, bool]:
    """The venv of brson's dependencies (:data:`REQUIREMENTS`) that both clean venvs see, kept
    in :data:`DEPENDENCIES` between runs as the wheelhouse is: unpacking the same wheels
    again (numpy, pyarrow, DuckDB: 340 MB) was a quarter of the check's CPU, and proves
    nothing about brson, whose installs stay new each run. One venv for each set of
    requirements, interpreter and wheelhouse (a new requirement or wheel makes a new one);
    the others go once unused for a day. Returns the venv and whether it was installed now."""
    key = json.dumps(
        {
            "python": [sys.version, sys.base_prefix],
            "requirements": REQUIREMENTS,
            "wheels": sorted(p.name for p in WHEELHOUSE.glob("*.whl")),
        }
    )
    folder = DEPENDENCIES / hashlib.sha256(key.encode()).hexdigest()[:16]
    done = folder / "installed.json"
    DEPENDENCIES.mkdir(parents=True, exist_ok=True)
    with open(DEPENDENCIES / ".lock", "w") as lock:  # one run installs, the others wait
        fcntl.flock(lock, fcntl.LOCK_EX)
        for other in DEPENDENCIES.iterdir():
            if other.is_dir() and other != folder and time.time() - other.stat().st_mtime > 86400:
                shutil.rmtree(other, ignore_errors=True)
        if done.is_file() and done.read_text() == key:
            folder.touch()
            return Venv(folder, create=False), False
        shutil.rmtree(folder, ignore_errors=True)  # an install that did not finish
        venv = Venv(folder)
        venv.install(*REQUIREMENTS)
        done.write_text(key)
        return venv, True


def glb_json(path: Path) -> dict[str, object]:
    """The JSON chunk of a GLB, after checking its header."""
    data = path.read_bytes()
    check(data[:4] == b"glTF" and int.from_bytes(data[4:8], "little") == 2, f"{path}: not GLB 2")
    check(int.from_bytes(data[8:12], "little") == len(data), f"{path}: length field is wrong")
    size = int.from_bytes(data[12:16], "little")
    check(data[16:20] == b"JSON", f"{path}: first chunk is not JSON")
    value = json.loads(data[20 : 20 + size])
    check(isinstance(value, dict), f"{path}: JSON chunk is not an object")
    return dict(value)


def inlined(bundle: bytes) -> str:
    """The bundle as the --html page inlines it (brson.view.page's escaping)."""
    return bundle.decode().replace("</script", "<\\/script").replace("<!--", "<\\!--")


class Suite:
    """Every command on the samples, each output checked; outputs in *out*."""

    def __init__(self, venv: Venv, out: Path) -> None:
        self.venv = venv
        self.out = out
        self.count = 0
        out.mkdir(parents=True)

    def brson(self, *args: str | Path, codes: Sequence[int] = (0,)) -> str:
        code, stdout, stderr = self.venv.brson([str(self.out), *(str(a) for a in args)])
        self.count += 1
        shown = " ".join(str(a) for a in args)
        check(code in codes, f"brson {shown}: exit {code}, expected {codes}\n{stderr}")
        check("Traceback" not in stderr, f"brson {shown}: traceback\n{stderr}")
        return stdout

    def json(self, *args: str | Path, codes: Sequence[int] = (0,)) -> object:
        return json.loads(self.brson(*args, codes=codes))

    def same(self, a: Path, b: Path) -> None:
        check(a.read_bytes() == b.read_bytes(), f"{a} and {b} differ")

    def run(self) -> Suite:
        o = self.out
        standin = SAMPLES / "orange3134_loading_standin.brson"
        package = SAMPLES / "orange3134_loading_standin.resonitepackage"
        avatar_root = SAMPLES / "orange3134_AvatarRootIdentification.brson"
        redx = SAMPLES / "redx_5ce7cdf5.7zbson"
        samples = sorted(p for p in SAMPLES.iterdir() if p.name != "MANIFEST.md")

        version = self.venv.run(self.venv.bin / "python", "-m", "brson", "--version")
        self.count += 1
        check(version.returncode == 0 and version.stdout.strip(), "python -m brson --version")
        infos = self.json("info", SAMPLES, "--json")
        check(isinstance(infos, list) and len(infos) == len(samples), "info: one row per file")
        report = self.json("validate", SAMPLES, "--format", "json", codes=(0, 1))
        check(report, "validate --format json: empty report")
        self.json("tree", standin, "--json")
        self.json("refs", package, "--json")
        self.brson("schema", "-o", o / "schemas")
        check(any((o / "schemas").glob("*.json")), "schema wrote no JSON Schema")

        # The codecs and the JSON form, byte for byte.
        self.brson("convert", standin, o / "standin.lz4bson")
        self.brson("convert", o / "standin.lz4bson", o / "standin.7zbson")
        self.brson("convert", o / "standin.7zbson", o / "standin.brson")
        self.same(standin, o / "standin.brson")
        self.brson("convert", redx, o / "redx.brson")
        self.brson("to-json", standin, "-o", o / "standin.json")
        self.brson("from-json", o / "standin.json", "-o", o / "standin-json.brson")
        self.same(standin, o / "standin-json.brson")

        # The card's jobs on a package: extract, validate, diff, export.
        self.brson(
            "extract", package, "--slot", "Visual", "--package", "-o", o / "visual.resonitepackage"
        )
        self.brson("validate", "--strict", o / "visual.resonitepackage")
        self.json("diff", package, o / "visual.resonitepackage", "--json", codes=(1,))
        self.brson("export-gltf", o / "visual.resonitepackage", "-o", o / "visual.glb")
        check(glb_json(o / "visual.glb").get("meshes"), "visual.glb has no mesh")
        avatar = FIXTURES / "gltf" / "test_avatar.resonitepackage"
        self.brson("export-gltf", avatar, "-o", o / "avatar.glb")
        check(glb_json(o / "avatar.glb").get("skins"), "avatar.glb has no skin")
        self.brson(
            "export-godot",
            o / "visual.resonitepackage",
            "-o",
            o / "v4.tscn",
            "--godot",
            "4",
            "--gltf",
        )
        check((o / "v4.tscn").read_text().startswith("[gd_scene"), "v4.tscn is not a scene")
        self.brson("export-godot", standin, "-o", o / "v3.tscn", "--godot", "3")
        check((o / "v3.tscn").read_text().startswith("[gd_scene"), "v3.tscn is not a scene")
        self.brson("import-gltf", o / "visual.glb", "-o", o / "from-gltf.resonitepackage")
        assets = self.json("assets", package, "-o", o / "assets", "--json")
        check(assets and any((o / "assets").iterdir()), "assets exported nothing")

        # The edit commands, and a patch from diff applied.
        self.brson("set", standin, "Visual.Active", "false", "-o", o / "set.brson")
        self.brson("rename", standin, "Visual", "Renamed", "-o", o / "rename.brson")
        self.brson("move", standin, "UserIconMat", "--index", "0", "-o", o / "move.brson")
        self.brson("delete", standin, "Visual", "--prune-types", "-o", o / "delete.brson")
        check(self.json("vars", avatar_root, "--json"), "vars found no variable")
        self.brson(
            "set-var", avatar_root, "modular_avatar/AvatarWorn=true", "-o", o / "setvar.brson"
        )
        self.brson("renumber", redx, "-o", o / "renumber.7zbson")
        self.brson("import", avatar_root, standin, "--slot", "Visual", "-o", o / "import.brson")
        patch = self.brson("diff", standin, o / "set.brson", "--json", codes=(1,))
        (o / "set.patch.json").write_text(patch)
        self.brson("apply", standin, o / "set.patch.json", "-o", o / "applied.brson")
        self.brson("diff", o / "applied.brson", o / "set.brson")

        # The viewer: the self-contained page, and the server's page and bundle.
        self.brson("view", package, "--html", o / "view.html")
        bundle = (ROOT / BUNDLE).read_bytes()
        check(inlined(bundle) in (o / "view.html").read_text(), "view.html lacks the bundle")
        self.view_server(package, bundle)

        # The library index.
        self.brson("scan", SAMPLES, FIXTURES / "real", "-o", o / "index")
        rows = self.json("query", o / "index", "--report", "types", "--format", "json")
        check(isinstance(rows, list) and rows, "query --report types: no rows")
        count = self.brson("query", o / "index", "SELECT count(*) FROM files", "--format", "csv")
        check(count.split()[-1] == str(len(samples) + 1), f"query: files counted {count!r}")

        # Every archive written above reads back and validates.
        archives = (".brson", ".7zbson", ".lz4bson", ".resonitepackage")
        written = sorted(p for p in o.iterdir() if p.suffix in archives)
        rows = self.json("info", *written, "--json")
        check(isinstance(rows, list) and len(rows) == len(written), "info of the outputs")
        self.brson("validate", *written, codes=(0, 1))
        return self

    def view_server(self, package: Path, bundle: bytes) -> None:
        """`brson view --no-browser` serves the page and the committed bundle."""
        cmd = [str(self.venv.bin / "brson"), "view", str(package), "--no-browser"]
        with subprocess.Popen(
            cmd,
            env=self.venv.env,
            cwd=self.out,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ) as proc:
            deadline = threading.Timer(60, proc.kill)  # a server that never answers
            deadline.start()
            try:
                assert proc.stdout is not None
                line = proc.stdout.readline()
                self.count += 1
                check(" at http://127.0.0.1:" in line, f"brson view printed {line!r}")
                url = line.split(" at ", 1)[1].split()[0]
                token = url.split("token=", 1)[1]
                local = urllib.request.build_opener(urllib.request.ProxyHandler({}))
                with local.open(url, timeout=30) as page:
                    check(b"three.bundle.min.js" in page.read(), "the page links no bundle")
                base = url.split("/?", 1)[0]
                vendor = f"{base}/static/vendor/three.bundle.min.js?token={token}"
                with local.open(vendor, timeout=30) as served:
                    check(served.read() == bundle, "the server's bundle is not the committed one")
            finally:
                deadline.cancel()
                proc.terminate()
                proc.wait(timeout=30)


#: Written with the time it was written: import-gltf's package record.
TIMESTAMPED = "R-Main.record"


def contents(path: Path) -> dict[str, bytes]:
    """A file's bytes; a package's entries by name, less its timestamped record."""
    if path.suffix != ".resonitepackage":
        return {"": path.read_bytes()}
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist() if n != TIMESTAMPED}


def compare(a: Path, b: Path) -> int:
    """Every file both runs wrote is the same (the pure path and the C path agree), but the
    scan index, which records when it was made; returns how many were compared."""
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file() and "index" not in p.parts)
    for rel in files:
        check(contents(a / rel) == contents(b / rel), f"pure and C outputs differ: {rel}")
    return len(files)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    args = parser.parse_args()
    start = time.monotonic()

    def say(message: str) -> None:
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = used.ru_utime + used.ru_stime
        wall = time.monotonic() - start
        print(f"wheel-check: {message} ({wall:.0f} s, {cpu:.0f} s of CPU)", flush=True)

    work = args.keep or Path(tempfile.mkdtemp(prefix="brson-wheel-check-"))
    if args.keep:
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)

    def dependencies() -> Venv:
        """brson's dependencies and the two extras', in a venv both installs share."""
        venv, installed = shared_dependencies()
        say(f"{'installed' if installed else 'reused'} the {len(REQUIREMENTS)} dependencies")
        return venv

    def from_sdist(sdist: Path, deps: Venv) -> Suite:
        """The sdist in a clean venv: no compiler, so pure Python."""
        venv = Venv(work / "sdist-venv", deps)
        venv.install(f"brson[scan,gltf] @ {sdist.as_uri()}")
        files, loaded = venv.extensions()
        check(not files and not loaded, f"compiled with no compiler: {files}, loads {loaded}")
        say("installed the sdist with no compiler: pure Python")
        try:
            return Suite(venv, work / "pure").run()
        finally:
            venv.close()

    def from_wheel(wheel: Path, deps: Venv) -> Suite:
        """The wheel, built from the sdist's tree with this machine's compiler, in a clean venv."""
        extensions = check_wheel(wheel)
        venv = Venv(work / "wheel-venv", deps)
        venv.install(f"brson[scan,gltf] @ {wheel.as_uri()}")
        installed, loaded = venv.extensions()
        check(installed == extensions, f"installed {installed}, not the wheel's {extensions}")
        check(len(loaded) == len(installed), f"loads {loaded} of {installed}")
        say(f"installed {wheel.name}: {len(installed)} C extensions, each loaded")
        try:
            return Suite(venv, work / "wheel").run()
        finally:
            venv.close()

    try:
        check(SAMPLES.is_dir(), f"no samples at {SAMPLES}")
        check((ROOT / BUNDLE).is_file(), f"no {BUNDLE}: it is committed (git checkout it)")
        # Two at a time: each is mostly a chain of short processes.
        with ThreadPoolExecutor(2) as pool:
            shared = pool.submit(dependencies)
            sdist, _, wheel = build_both(work / "dist", work / "src")
            say(f"built {sdist.name}: the bundle, {len(PACKAGE_DATA) - 2} stubs, the C sources")
            say(f"built {wheel.name} from it")
            deps = shared.result()
            jobs = [pool.submit(from_sdist, sdist, deps), pool.submit(from_wheel, wheel, deps)]
            pure, accelerated = (job.result() for job in jobs)
        same = compare(pure.out, accelerated.out)
        say(f"{pure.count} commands on each install; {same} outputs the same from both")
    except (CheckError, subprocess.CalledProcessError) as exc:
        print(f"wheel-check: FAILED: {exc}", file=sys.stderr)
        return 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    say("ok: no npm, no compiler on PATH")
    return 0


if __name__ == "__main__":
    sys.exit(main())
