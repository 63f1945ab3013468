"""The C accelerators: raw.py's byte loops (brson/document/_rawc.c) and the Godot 4 metadata
writer (brson/godot/_tscnc.c); CPython C API only, built by `pip install` with the system's C
compiler. Everything else is in pyproject.toml; this file
exists because setuptools' pyproject table for extensions is still experimental.

Optional: without a compiler or Python's headers the install goes on and brson runs its
pure-Python path (`make` installs them on Debian; CI=true fails tests/document/test_rawc.py
and tests/godot/test_tscnc.py when an extension is missing).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "brson.document._rawc",
            sources=["brson/document/_rawc.c"],
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
