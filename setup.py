"""brson's C accelerators (CPython C API only, built by `pip install` with the system's C
compiler): raw.py's byte loops (brson/document/_rawc.c), the ID scan (brson/model/_idscanc.c),
validate's per-field loop (brson/ops/validate/_fieldsc.c), ComponentSpans' walk
(brson/graph/_spansc.c)
and the Godot 4 metadata writer (brson/godot/_tscnc.c). Everything else is in pyproject.toml;
this file exists because setuptools' pyproject table for extensions is still experimental.

Optional: without a compiler or Python's headers the install goes on and brson runs its
pure-Python paths (`make` installs them on Debian; CI=true fails each module's differential
test, tests/<layer>/test_<module>.py, when its extension is missing).
"""

from setuptools import Extension, setup

#: BSON's framing rules shared by the C files that walk documents.
WIRE = "brson/document/_bsonwire.h"


def _extension(name: str, depends: tuple[str, ...] = ()) -> Extension:
    """One optional accelerator: the module ``brson.x._y`` is built from ``brson/x/_y.c``."""
    return Extension(
        name,
        sources=[name.replace(".", "/") + ".c"],
        depends=list(depends),
        optional=True,
        extra_compile_args=["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
    )


setup(
    ext_modules=[
        _extension("brson.document._rawc", (WIRE,)),
        _extension("brson.model._idscanc"),
        _extension("brson.ops.validate._fieldsc"),
        _extension("brson.graph._spansc", (WIRE,)),
        _extension("brson.godot._tscnc", (WIRE,)),
    ]
)
