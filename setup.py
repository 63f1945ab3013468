"""brson's C accelerators (CPython C API only, built by `pip install` with the system's C
compiler): every ``brson/_speedups/_<name>.c`` is the extension ``brson._speedups._<name>``
(the directory is the one list; brson/_speedups/__init__.py loads them). Everything else is
in pyproject.toml; this file exists because setuptools' pyproject table for extensions is
still experimental.

Optional: without a compiler or Python's headers the install goes on and brson runs its
pure-Python paths (`make` installs them on Debian; CI=true fails each module's differential
test when its extension is missing). `make sanitize` builds the same sources with ASan and
UBSan (scripts/sanitize.sh).
"""

import os
from pathlib import Path

from setuptools import Extension, setup

SPEEDUPS = Path("brson/_speedups")
#: Headers any extension may include (BSON's framing, growable arrays): a change rebuilds all.
HEADERS = sorted(str(p) for p in SPEEDUPS.glob("*.h"))

setup(
    # One compiler process a CPU (build_ext's own option, serial by default): the install is
    # the first step of `make test`, so its wall time is the run's.
    options={"build_ext": {"parallel": os.cpu_count() or 1}},
    ext_modules=[
        Extension(
            f"brson._speedups.{source.stem}",
            sources=[str(source)],
            depends=HEADERS,
            optional=True,
            extra_compile_args=["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
        )
        for source in sorted(SPEEDUPS.glob("_*.c"))
    ],
)
