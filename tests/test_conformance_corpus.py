"""The conformance matrix's corpus kept between test processes (``conformance.writers.CACHE``)
is the corpus the generator builds: a kept build is used only while its inputs are the same
and its files are whole, and is made again otherwise."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conformance import writers
from tests.conftest import FIXTURES

#: A small archive (fixtures/make_fixtures.py) that every document variant applies to: its
#: variants take a few milliseconds to build, where the matrix's corpus takes a second.
SMALL = "tiny.brson"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A samples folder holding :data:`SMALL`, the cache moved under ``tmp_path``."""
    monkeypatch.setattr(writers, "CACHE", tmp_path / "cache")
    samples = tmp_path / "samples"
    samples.mkdir()
    shutil.copyfile(FIXTURES / SMALL, samples / SMALL)
    return samples


def built(folder: Path) -> list[writers.Sample]:
    real = writers.real_samples(folder)
    return real + writers.variants(real)


def unbuildable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any build from now on fails the test: what follows must come from the cache."""

    def fail(real: list[writers.Sample]) -> list[writers.Sample]:
        raise AssertionError("built again")

    monkeypatch.setattr(writers, "variants", fail)


def test_kept_corpus_is_the_built_one(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = built(folder)
    assert len({s.variant for s in expected}) > 10  # variants, not the real file alone
    assert writers.corpus(folder) == expected  # built and kept
    (kept,) = writers.CACHE.iterdir()
    assert (kept / "manifest.json").is_file()
    unbuildable(monkeypatch)
    assert writers.corpus(folder) == expected  # read back whole, in order


def test_damaged_file_is_built_again(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = writers.corpus(folder)
    (kept,) = writers.CACHE.iterdir()
    victim = kept / next(s.name for s in expected if s.variant)
    victim.write_bytes(victim.read_bytes()[:-1])
    assert writers.corpus(folder) == expected
    unbuildable(monkeypatch)
    assert writers.corpus(folder) == expected  # the build kept again, whole


def test_missing_file_is_built_again(folder: Path) -> None:
    expected = writers.corpus(folder)
    (kept,) = writers.CACHE.iterdir()
    (kept / next(s.name for s in expected if s.variant)).unlink()
    assert writers.corpus(folder) == expected


def test_changed_sample_is_a_new_build(folder: Path) -> None:
    """Other bytes under a sample's name (the same document at another Brotli setting) are
    other inputs: a new build, not the kept one, which is dropped."""
    before = writers.corpus(folder)
    (old,) = writers.CACHE.iterdir()
    real = writers.real_samples(folder)[0]
    (folder / SMALL).write_bytes(writers.frdt_brotli(writers.document_bson(real), 5, 22))
    got = writers.corpus(folder)
    assert got == built(folder) and got != before
    (new,) = writers.CACHE.iterdir()
    assert new.name != old.name
