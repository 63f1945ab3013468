"""brson's C accelerators (CPython C API only, built by `pip install` with the system's C
compiler): raw.py's byte loops (brson/document/_rawc.c), the ID scan (brson/model/_idscanc.c),
validate's per-field loop (brson/ops/validate/_fieldsc.c), ComponentSpans' walk
(brson/graph/_spansc.c)
and the Godot 4 metadata writer (brson/godot/_tscnc.c). Everything else is in pyproject.toml;
this file exists because setuptools' pyproject table for extensions is still experimental.

Optional: without a compiler or Python's headers the install goes on and brson runs its
pure-Python paths (`make` installs them on Debian; CI=true fails each module's differential
test, tests/document/test_rawc.py, tests/model/test_idscanc.py,
tests/ops/test_fieldsc.py, tests/godot/test_tscnc.py, tests/graph/test_spansc.py,
when its extension is missing).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "brson.document._rawc",
            sources=["brson/document/_rawc.c"],
            depends=["brson/document/_bsonwire.h"],
            optional=True,
            extra_compile_args=["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
        ),
        Extension(
            "brson.model._idscanc",
            sources=["brson/model/_idscanc.c"],
            optional=True,
            extra_compile_args=["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
        ),
        Extension(
            "brson.ops.validate._fieldsc",
            sources=["brson/ops/validate/_fieldsc.c"],
            optional=True,
            extra_compile_args=["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
        ),
        Extension(
            "brson.graph._spansc",
            sources=["brson/graph/_spansc.c"],
            depends=["brson/document/_bsonwire.h"],
            optional=True,
            extra_compile_args=["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
        ),
        Extension(
            "brson.godot._tscnc",
            sources=["brson/godot/_tscnc.c"],
            optional=True,
            extra_compile_args=["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
        ),
    ]
)
