# The two commands: `make demo` and `make test` (each sets everything up on a fresh machine);
# `make check` is the edit-test loop.
PYTHON ?= python3
# Bytecode is cached (__pycache__/, git-ignored) even where the environment says not to: every
# `python -m brson` a test starts would otherwise compile brson again, and every pytest worker
# rewrite every test module's asserts again.
unexport PYTHONDONTWRITEBYTECODE
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
SAMPLE := fixtures/real/orange3134_loading_standin.brson
PACKAGE := fixtures/demo/orange3134_loading_standin.resonitepackage
OUT    := out
#: The viewer's three.js bundle (`brson view`): committed, so that a plain `pip install` has a
#: viewer with no npm; `make vendor` rebuilds it from the npm lockfile, `make vendor-check`
#: proves the committed bytes are what the lockfile builds.
THREE  := brson/view/static/vendor/three.bundle.min.js

.PHONY: demo test check lint typecheck sanitize sanitize-select bench fuzz fuzz-short fixtures schemas godot3 godot4 gltf-tools bench-gltf bench-scan clean vendor browser jq git-tool graphviz

#: The sources of the optional C accelerators (brson/_speedups/, built by setup.py), compiled
#: by pip install: a change to one rebuilds them.
CSRC   := $(wildcard brson/_speedups/*.c brson/_speedups/*.h)
#: The tests run a second time on the pure-Python path (BRSON_PURE_PYTHON=1): those that reach
#: the C accelerators' Python twins (the BSON indexer and framing, the ID scan, the component
#: spans, validate's field loop, the Godot writers, the JSON form's renderer and readers) and
#: the fallbacks the loader picks with the switch on, every complexity guard that counts the
#: twins' work (tests/regressions/test_issue12_scaling.py, the ID scan's collision guard;
#: only this pass can), and each accelerator's switch check. Chosen by coverage with each
#: test's context and CPU time (BRSON_PURE_PYTHON=1) over the 17 modules that hold a twin or
#: pick one (the loader too): a greedy cover weighted by CPU time, then the picks the others
#: make redundant dropped. The 331 tests of the list this replaced reached 2,985 of their lines
#: (1,984 inside tests, the rest at import); these 94 reach every one of them (2,989), for 52%
#: of the CPU (a function whole where all its cases cost under 0.6 s). The rest of those files
#: (sweeps over every sample, every codec, every case of a parametrized check) reach the same
#: twin lines: the main suite runs them with C. tests/model/test_bulk_lookups.py runs whole
#: (the closure's bulk lookups against one call an item, on the twins). Two of the JSON form's
#: property tests (the in-place reader, the number record streamed and whole) and validate's
#: mutation sweep are the main suite's alone, and the Godot 3 every-slot export: a from-json
#: round trip, a patch's fallback, one file each through the stream reader and the indexer
#: and two of the Godot writer's direct checks reach every twin line they did (and the stream
#: reader's own), for a fraction of their CPU.
PURE_TESTS := 'tests/cli/test_json_container.py::test_round_trip_restores_the_container[back.out-orange3134_AvatarRootIdentification.brson]' \
  tests/document/test_formreadc.py::test_reader_built_in_ci \
  'tests/document/test_formstreamc.py::test_every_sample_and_fixture[tiny.bson]' \
  tests/document/test_formstreamc.py::test_stream_reader_built_in_ci \
  tests/document/test_jsonform.py::test_depth_limit_is_the_same_for_every_writer \
  tests/document/test_jsonform.py::test_document_holding_the_record_key_is_wrapped \
  tests/document/test_jsonform.py::test_json_form_rejects_with_document_error \
  tests/document/test_jsonform.py::test_number_record_restores_integral_doubles \
  tests/document/test_jsonform.py::test_record_making_a_huge_integer_a_double_is_a_document_error \
  tests/document/test_jsonform.py::test_streamed_form_is_the_reference_text \
  'tests/document/test_jsonform.py::test_streamed_form_of_files_is_the_reference_text[samples/mar_AimConstraint.pg.brson]' \
  tests/document/test_jsonformc.py::test_renderer_built_in_ci \
  tests/document/test_rawc.py::test_accelerator_built_in_ci \
  'tests/document/test_rawc.py::test_every_document_of_every_file[truncated.bson]' \
  tests/document/test_rawc.py::test_pure_flag_read_at_import \
  tests/document/test_rawc.py::test_pure_python_forced \
  tests/godot/test_export.py::test_bad_transform_is_one_clear_error \
  tests/godot/test_export.py::test_cli_subtree_godot4_and_notes \
  tests/godot/test_export.py::test_refuses_what_godot_cannot_hold \
  tests/godot/test_export.py::test_scene_text_format2_and_format3 \
  tests/godot/test_export.py::test_values_without_a_godot_type_become_extended_json \
  tests/godot/test_export.py::test_writers_refuse_unknown_values_without_default \
  tests/godot/test_tscnc.py::test_head_negative_component_types \
  'tests/godot/test_tscnc.py::test_math_literals_with_and_without_c[3]' \
  tests/godot/test_tscnc.py::test_writer_built_in_ci \
  tests/graph/test_refs.py::test_described_by_spans_on_long_paths \
  'tests/graph/test_refs.py::test_described_by_spans_on_samples[samples/orange3134_AvatarRootIdentification.resonitepackage]' \
  'tests/graph/test_refs.py::test_samples_match_independent_references[samples/redx_5ce7cdf5.7zbson]' \
  tests/graph/test_spansc.py::test_accelerator_built_in_ci \
  tests/model/test_idscanc.py::test_accelerator_built_in_ci \
  tests/ops/test_edit_ids.py::test_fresh_ids_in_a_neosvr_file_are_random_and_new \
  tests/ops/test_edit_ids.py::test_other_ids_are_not_sequential \
  'tests/ops/test_edit_ids.py::test_renumber_is_deterministic_idempotent_and_keeps_references[orange3134_AvatarRootIdentification.brson]' \
  tests/ops/test_edit_ids.py::test_renumber_map_follows_document_order \
  tests/ops/test_edit_ids.py::test_sequential_id_range \
  tests/ops/test_edit_ids.py::test_style_comes_from_the_definitions \
  tests/ops/test_edit_ids.py::test_take_is_repeated_next \
  tests/ops/test_fieldsc.py::test_accelerator_built_in_ci \
  tests/ops/test_patch.py::test_replace_fallback_for_duplicate_ids \
  'tests/ops/test_id_value_types.py::test_id_values_of_other_types_are_findings_or_errors[code with scope-ParentReference]' \
  'tests/ops/test_id_value_types.py::test_id_values_of_other_types_are_findings_or_errors[code-slot ID]' \
  'tests/ops/test_id_value_types.py::test_id_values_of_other_types_are_findings_or_errors[dbref-Persistent-ID]' \
  'tests/ops/test_id_value_types.py::test_id_values_of_other_types_are_findings_or_errors[int64-Persistent-ID]' \
  'tests/ops/test_id_value_types.py::test_id_values_of_other_types_are_findings_or_errors[minkey-member ID]' \
  'tests/ops/test_id_value_types.py::test_id_values_of_other_types_are_findings_or_errors[regex-component ID]' \
  tests/ops/test_validate.py::test_a_removed_component_leaves_its_references_dangling \
  tests/ops/test_validate.py::test_dbref_shaped_members_read_as_the_model_reads_them \
  'tests/ops/test_validate.py::test_fixture_reports_exactly_its_codes[BR207_field_not_member.brson]' \
  'tests/ops/test_validate.py::test_fixture_reports_exactly_its_codes[BR208_active_string.brson]' \
  'tests/ops/test_validate.py::test_fixture_reports_exactly_its_codes[BR302_type_double.brson]' \
  'tests/ops/test_validate.py::test_fixture_reports_exactly_its_codes[BR601_index_in_neos.7zbson]' \
  'tests/ops/test_validate.py::test_fixture_reports_exactly_its_codes[BR602_name_in_resonite.brson]' \
  'tests/ops/test_validate.py::test_fixture_reports_exactly_its_codes[BR701_input_reads_a_field_owner.brson]' \
  'tests/ops/test_validate.py::test_fixture_reports_exactly_its_codes[BR702_impulse_to_a_field_owner.brson]' \
  'tests/ops/test_validate.py::test_fixture_reports_exactly_its_codes[BR703_node_in_assets.brson]' \
  'tests/ops/test_validate.py::test_fixture_reports_exactly_its_codes[BR704_proxy_of_another_slot.brson]' \
  tests/ops/test_validate.py::test_parent_reference_repeating_a_member_or_component_id_is_a_duplicate \
  tests/model/test_bulk_lookups.py tests/regressions/test_issue12_scaling.py \
  tests/regressions/test_issue27_decoder_handoff.py::test_c_check_answers_as_python \
  'tests/regressions/test_issue27_decoder_handoff.py::test_commands_refuse_the_retyped_item[export-gltf]' \
  tests/regressions/test_issue27_idscan.py::test_colliding_ids_cost_linear_probes

# The suite's tiers: markers in pyproject.toml (`engine`: a real Godot, Blender or glTF-Validator;
# `browser`: Chromium; `slow`: over ~3 s of CPU alone). pytest-xdist spreads the tests over the
# CPUs; `loadgroup` keeps each engine's tests (and the browser's) on one worker, so each engine
# session starts once. XDIST="-n 0" runs them in one process.
XDIST ?= -n auto --dist loadgroup
FAST  := not engine and not browser and not slow

# The venv's pip is the newest the index has, installed once by $(PYTHON)'s own pip (ensurepip
# where that has none: it installs its bundled pip, byte-compiled, which an upgrade then
# replaced: 12 s of CPU of the serial setup). Nothing is byte-compiled at install
# (--no-compile): compiling every module of every dependency was 23 s of CPU, and a run
# imports under a third of them (each compiled, and cached, at its first import).
$(STAMP): pyproject.toml setup.py $(CSRC)
	test -x $(BIN)/python || $(PYTHON) -m venv --without-pip $(VENV)
	sh scripts/ensure-cc.sh $(BIN)/python
	$(BIN)/python -m pip --version > /dev/null 2>&1 || \
	  $(PYTHON) -m pip --python $(BIN)/python install -q --no-compile --upgrade pip || \
	  $(BIN)/python -m ensurepip --upgrade
	$(BIN)/python -m pip install -q --no-compile -e '.[test,gltf,scan,dask,fuzz]'
	touch $(STAMP)

# The card's jobs on a real package: extract a subtree (the thumbnail: mesh, material, texture)
# into a package of its own, validate it as CI would, diff it against its source, export it to
# glTF and Godot 4; then the byte-exact codec round trip. Outputs in out/.
demo: $(STAMP) $(THREE)
	mkdir -p $(OUT)/godot
	$(BIN)/brson info $(PACKAGE)
	$(BIN)/brson extract $(PACKAGE) --slot Visual --package -o $(OUT)/visual.resonitepackage
	$(BIN)/brson validate --strict $(OUT)/visual.resonitepackage
	$(BIN)/brson diff $(PACKAGE) $(OUT)/visual.resonitepackage | tail -n 5; true
	$(BIN)/brson export-gltf $(OUT)/visual.resonitepackage -o $(OUT)/visual.glb
	$(BIN)/brson export-godot $(OUT)/visual.resonitepackage -o $(OUT)/godot/visual.tscn --godot 4 --gltf
	$(BIN)/brson view $(PACKAGE) --html $(OUT)/standin.html
	$(BIN)/brson convert $(SAMPLE) $(OUT)/standin.lz4bson
	$(BIN)/brson convert $(OUT)/standin.lz4bson $(OUT)/standin.7zbson
	$(BIN)/brson convert $(OUT)/standin.7zbson $(OUT)/standin.brson
	cmp $(SAMPLE) $(OUT)/standin.brson && echo "round trip brotli -> lz4 -> lzma -> brotli: byte-identical"
	@echo "outputs in $(OUT)/: visual.resonitepackage (the extracted subtree), visual.glb (glTF 2.0), godot/visual.tscn + godot/visual.glb (Godot 4), standin.{lz4bson,7zbson,brson} (codecs), standin.html (brson view)"

# Rebuild the committed bundle after a change to brson/view/js (npm; commit the result).
vendor:
	sh scripts/vendor-three.sh

.PHONY: vendor-check wheel-check
# The committed bundle is byte for byte what brson/view/js/package-lock.json builds (npm;
# CI=true fails without it).
vendor-check:
	sh scripts/vendor-three.sh --check

# The install as a user gets it: sdist and wheel built (`python -m build`) carry the bundle and
# the stubs; in a clean venv with no compiler, npm or node on PATH, the sdist installs pure
# Python and the wheel with its C extensions, and every command runs on the samples with each
# (the same outputs from both; each venv's commands in one process of it, through the CLI's
# entry point). Dependencies' wheels are cached in ~/.cache/brson/wheelhouse and installed once,
# in a venv both clean venvs see through a .pth (pip still resolves each install's requirements);
# sdist and wheel are built in one isolated build environment. Measured at load average 13-14:
# 41.7 s of CPU (44.3 s with a dependency install and a build environment each).
wheel-check: $(STAMP)
	$(BIN)/python scripts/wheel-check.py

# Debian's Chromium for the viewer's browser tests (tests/view; CI=true fails them without it).
browser:
	sh scripts/ensure-apt.sh chromium chromium

godot3:
	sh scripts/ensure-godot3.sh

# Godot 4.6 from Debian sid in a private prefix (~30 s, ~550 MB, cached in ~/.cache/brson).
godot4:
	sh scripts/get-godot4.sh

# Debian's jq 1.6 (apt) and Debian 13's jq 1.7.1 (a private prefix in ~/.cache/brson/jq) for the
# README's `to-json | jq . | from-json` pipeline tests (tests/cli/test_jq_pipeline.py).
jq:
	sh scripts/ensure-jq.sh

# Debian's git for the git integration tests (tests/cli/test_git_cli.py).
git-tool:
	sh scripts/ensure-apt.sh git git

# Debian's Graphviz: `brson flux --format svg`, and tests/flux renders every sample's DOT with it.
graphviz:
	sh scripts/ensure-apt.sh dot graphviz

# The glTF checks' tools: Khronos glTF-Validator (npm, lockfile in tests/gltf/node) and Blender.
gltf-tools:
	sh scripts/ensure-gltf-tools.sh

# Everything, in three phases of `make -j` (the steps are independent, and while one waits on
# an engine, a download or a child process the others use the CPUs):
#   1. the venv (pip, single-threaded for most of its time) beside the engines and tools and the
#      C built with ASan + UBSan (`sanitize-build`: needs gcc and Python's headers, not the venv);
#   2. the warm-up collection beside the steps that collect no tests: the atheris fuzz slice
#      (`fuzz-short`), types, lint and the viewer bundle's rebuild check;
#   3. after the warm-up: the whole suite with every real engine (`suite`), the accelerated
#      modules' tests again on the pure-Python path (`pure`), the sanitized tests (`sanitize`,
#      in a copy of the tree) and the wheel in clean venvs (`wheel-check`).
# Godot 3 and Godot 4 engine tests always run in CI (CI=true fails them without the engine;
# outside CI they skip when an engine is missing), and the suite runs with the C accelerators
# (CI=true fails when one is not built).
# Side by side, the wall time is the CPU time over two CPUs, so each step's CPU is what counts.
# Measured on a fresh clone's `.ci/run` (this target, CI=true, every engine) on the 2-CPU
# machines with no other job of ours (user + sys of every process it waits for; Chromium's and
# the scan's pool workers are not all counted): on an Intel Xeon 2 min 51 s to 3 min 47 s wall,
# 289-395 s of CPU (the tree before the last cuts to the sweeps and side steps, in runs
# interleaved with these: 3 min 11 s to 3 min 47 s, 335-395 s); on an AMD EPYC 5 min 04 s to
# 5 min 44 s and 542-609 s for that earlier tree. Phase 1 took 31-37 s (pip), phase 2 16 s;
# then side by side (Xeon): suite 5,767 tests in 128-174 s wall (the critical path; the
# conformance matrix runs its covering design, 515 cells, BRSON_EXHAUSTIVE=1 the 1,260),
# sanitize 112 tests in 41-58 s, pure 99 tests in 36-46 s (one process), wheel-check 15-22 s
# of CPU (its dependencies' venv kept in ~/.cache/brson: on a fresh
# machine about 10 s more). A `brson` process costs 0.04-0.3 s of CPU before it reads a byte
# (typer; rich only where it prints), and the suite starts about a hundred; each engine (Blender, Godot 3 and 4, Chromium, the
# validator) starts once per session where it checks many files, its tests kept on one worker
# (`--dist loadgroup`; pytest is pinned below 9.2, which stopped honouring the groups).
# Each step's CPU alone (user + sys, children included) at load average 5-10 from other jobs:
# fuzz-short 24-27 s (one process instruments what the targets import and forks every target;
# 44-56 s a process a target), setup on a fresh clone 42 s (pip installed once, nothing
# byte-compiled at install; the old recipe 69 s), sanitize-build 7-8 s (the 8 compiles at -Og
# -g1, the copy byte-compiled beside them), sanitize's tests 24-25 s (under ASan with
# PYTHONMALLOC=malloc, asserts not rewritten), wheel-check 16-22 s, typecheck 15 s with mypy's cache removed (under 1 s
# from the one in ~/.cache/brson when the tree is unchanged), vendor-check 4 s (npm ci
# included), lint 2 s.
test: $(THREE)
	sh scripts/ensure-cc.sh $(PYTHON)
	$(MAKE) -j --output-sync=target $(STAMP) test-tools sanitize-build
	BRSON_GODOT4="$$(cat $(TESTTMP)/godot4)" $(MAKE) -j --output-sync=target test-steps

# `make test`'s scratch: the sanitized build made while pip installs, the Godot 4 path (outside
# the checkout: setuptools builds in build/, and nothing here may be collected or packaged).
TESTTMP := $(or $(TMPDIR),/tmp)/brson-test-$(shell printf %s "$(CURDIR)" | cksum | cut -d' ' -f1)

.PHONY: test-tools sanitize-build test-steps test-suite test-sanitize test-pure test-wheel-check
# The engines and tools, one after another (apt takes one install at a time); Godot 4 last, in
# its private prefix (BRSON_GODOT4 when set; else fetched as root, cached in ~/.cache/brson).
test-tools:
	nice $(MAKE) -j1 --no-print-directory browser godot3 gltf-tools jq git-tool graphviz
	mkdir -p $(TESTTMP)
	{ [ -n "$$BRSON_GODOT4" ] && echo "$$BRSON_GODOT4" || \
	  { [ "$$(id -u)" = 0 ] && timeout 900 sh scripts/get-godot4.sh 2>/dev/null | tail -n 1; } || \
	  true; } > $(TESTTMP)/godot4

# ASan + UBSan build of the C, with the interpreter the venv is made from (only the headers).
# Niced, as test-tools is: pip, the phase's longest step, runs first whenever it can (the
# compiles beside it at the same priority made it 10 s slower).
sanitize-build:
	PY=$(PYTHON) nice sh scripts/sanitize.sh --build $(TESTTMP)/sanitize

# The warm-up collection first, beside the steps that collect no tests; the rest after it.
test-steps: test-suite test-sanitize test-pure test-wheel-check fuzz-short typecheck vendor-check lint
test-suite test-pure test-wheel-check: warm
	@$(MAKE) --no-print-directory $(@:test-%=%)
test-sanitize: warm
	SANITIZE_DIR=$(TESTTMP)/sanitize sh scripts/sanitize.sh

.PHONY: suite pure fast warm test-exhaustive
# `make test` with every sweep in full (BRSON_EXHAUSTIVE=1; tests/tiers.py): extract on every
# slot of every real file, the full hypothesis example counts, the long fuzz slices, the whole
# scan library. After changing an operation's core or a generator, and before a release.
test-exhaustive:
	BRSON_EXHAUSTIVE=1 $(MAKE) test

# pytest rewrites each test module's asserts at import and caches the result in __pycache__;
# on a fresh clone the suite's and the pure pass's workers, started together, would each
# rewrite every module (a collection: 14 s of CPU cold, 5 s from the cache; the conformance
# corpus is kept in tests/conformance/__pycache__ between processes). `make test` has one
# collection fill the cache first, beside only the steps that collect no tests: run beside
# every step's start it waited over a minute, and the suite, the critical path, waited with it.
warm: $(STAMP)
	$(BIN)/python -m pytest -q --collect-only -p no:cacheprovider > /dev/null

# The whole suite (every tier), spread over the CPUs.
suite: $(STAMP)
	$(BIN)/python -m pytest -q $(XDIST)

# PURE_TESTS with BRSON_PURE_PYTHON=1: every C accelerator's Python twin, through its callers.
# One process: two xdist workers would each start and collect for a short run, and the other
# steps of `make test` use the second CPU. Measured at load average 1.3-1.6: 10 s of CPU for the
# 99 tests, of which the complexity guards (kept whole) about 6 s and the start 1 s.
pure: $(STAMP)
	BRSON_PURE_PYTHON=1 $(BIN)/python -m pytest -q -p no:cacheprovider -n 0 $(PURE_TESTS)

# The fast tier alone (no engine, browser or slow test).
fast: $(STAMP)
	$(BIN)/python -m pytest -q $(XDIST) -m "$(FAST)"

# ruff (lint and format) over everything the repo runs, the layers contract in
# pyproject.toml (import-linter; all pinned in the test extra), and no module-level import
# cycle among brson's modules (the rule: scripts/check_import_cycles.py).
lint: $(STAMP)
	$(BIN)/ruff check brson tests fixtures fuzz benchmarks scripts
	$(BIN)/ruff format --check brson tests fixtures benchmarks fuzz scripts
	$(BIN)/lint-imports
	$(BIN)/python scripts/check_import_cycles.py brson

# mypy's incremental cache lives outside the checkout, so that a fresh clone starts from it:
# mypy rechecks every module whose source hash differs from the cached one, and those that
# depend on it (each module's entry is checked against its source's hash when the mtime
# differs, whatever the checkout's path), so the result is a full check's. Measured at load
# average 8-13: 20.5 s of CPU cold, 0.7 s in a fresh clone of the same tree. MYPY_CACHE=
# (empty) checks with the checkout's own.
MYPY_CACHE ?= $(HOME)/.cache/brson/mypy
typecheck: $(STAMP)
	$(BIN)/mypy $(if $(MYPY_CACHE),--cache-dir $(MYPY_CACHE)) brson

# The edit-test loop: lint, types and the fast tier side by side (the aim: under 90 s wall on
# 2 idle CPUs). Sweeps that repeat one path (mutations, every slot, generated examples) are
# `slow` and run in `make test`; each area keeps its real-sample, error-path and API tests here.
# Measured on the 2-CPU machine at load average under 1: 71 s wall, 122 s of CPU (3,592 fast
# tests in 69 s) with mypy's cache warm; with it removed, about 20 s more of CPU.
check: $(STAMP)
	$(MAKE) -j --output-sync=target lint typecheck fast

# The C accelerators built with ASan + UBSan in a copy of the tree (the checkout's build is
# left alone, so the rest of `make test` runs meanwhile), then, in one process at the sanitized
# depth (BRSON_SANITIZE=1, tests/tiers.py), the tests of scripts/sanitize-tests.txt: chosen by
# C line coverage from the differential tests, the decoder hand-off, the ID scan's guards and
# the fuzz slice's C targets, at the least CPU found, they reach every one of the 4,710 lines
# of C those reach (112 tests of 1,147); any report fails (scripts/sanitize.sh; gcc's libasan,
# Debian's gcc). A read planted one byte past a document's end in _rawc.c's indexer fails it
# (heap-buffer-overflow, exit 86), and so does a planted signed overflow (UBSan's report on the
# terminal). Built at -Og -g1 (a third of -O1 -g's compile CPU, the same run time, and
# -Wmaybe-uninitialized still an error, which -O0 drops). Measured at load average 3-8: the
# build 7-8 s of CPU, the tests 24-25 s.
sanitize: $(STAMP)
	sh scripts/sanitize.sh

# Writes scripts/sanitize-tests.txt again (scripts/sanitize_select.py): the C built with gcov,
# ASan and UBSan in a copy of the tree, the broad candidate selection run at the sanitized depth
# with each test's C lines and CPU time, then the cheapest tests found that reach every line: a
# cover weighted by CPU time, less the picks others make redundant (prints the lines reached and
# the CPU, before and after). Run it after adding or changing C, adding a real sample, or
# renaming a listed test (the fast tier's tests/test_sanitize_selection.py fails on a listed
# test that is gone). About 220 s of the candidates' CPU, and gcov's; on a loaded machine it
# splits: --keep DIR --files ... side by side, then --reuse DIR... (scripts/sanitize_select.py).
sanitize-select: $(STAMP)
	$(BIN)/python scripts/sanitize_select.py

# Benchmarks (docs/performance.md): the targets on both families of worlds, one table each, met
# or missed: synthetic (1k, 10k, 100k slots) and real-shaped (the real samples tiled to 100 MiB of
# BSON, benchmarks/realworld.py); worlds cached in benchmarks/worlds/, results to
# benchmarks/results/. BENCH_ARGS="--sizes 1000,10000 --real 10" for a quick run,
# "--sizes 10000 --real '' --ops extract_1,validate" for some operations on one world,
# "--sizes 10000 --real '' --outputs-only" for each operation's output sha256 alone (byte-identity
# before and after a change); Node (for the JS peer) is optional. The scan benchmark follows a full
# run only (no BENCH_ARGS). benchmarks/scaling.py --check fails the run on superlinear growth of
# the work unit tests cannot count (the regex engine's; docs/performance.md, "Complexity guards").
bench: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[bench]'
	-command -v npm >/dev/null && npm install --silent --no-audit --no-fund --prefix benchmarks/js
	$(BIN)/python benchmarks/run.py $(BENCH_ARGS)
	$(BIN)/python benchmarks/scaling.py --check
	if [ -z '$(BENCH_ARGS)' ]; then $(MAKE) bench-scan; fi

# brson scan on a generated 10,000-file library: 1 and 2 local workers, a 2-worker Dask
# LocalCluster, memory at 1k vs 10k files, report latency (docs/scan.md,
# benchmarks/results/benchmarks-scan.json).
# BENCH_SCAN_ARGS="--files 2000 --small 500" for a quick run.
bench-scan: $(STAMP)
	$(BIN)/python benchmarks/scan.py $(BENCH_SCAN_ARGS)

# glTF export of a 100k-vertex skinned avatar and of the 10k-slot world against reading the same
# bytes (benchmarks/results/benchmarks-gltf.json, docs/gltf-export.md).
bench-gltf: $(STAMP)
	$(BIN)/python benchmarks/gltf.py

# Long fuzz run (atheris/libFuzzer; FUZZ_RUNS executions per target, findings in fuzz/findings/).
FUZZ_RUNS    ?= 100000
FUZZ_TARGETS ?= loads validate godot3 godot4 package gltf meshx patch folders sql
# Hostile data trees through every command (fuzz/trees.py): ~0.4 s an input, so fewer runs;
# the test suite runs a fixed slice of it (tests/hardening/test_tree_fuzz.py).
FUZZ_TREE_RUNS ?= 3000
# A fixed seed makes a run repeatable (CI's slice uses one); empty: libFuzzer picks one.
FUZZ_SEED ?=
fuzz: $(STAMP)
	$(BIN)/python -c 'import atheris' 2>/dev/null || $(BIN)/python -m pip install -q -e '.[fuzz]' || \
	  echo "atheris unavailable: plain mutation driver"
	mkdir -p fuzz/findings
	$(BIN)/python fuzz/run.py $(FUZZ_TARGETS) -runs=$(FUZZ_RUNS) $(if $(FUZZ_SEED),-seed=$(FUZZ_SEED))
	if [ "$(FUZZ_TREE_RUNS)" -gt 0 ]; then \
	  echo "== fuzz trees (log: fuzz/findings/trees.log)"; \
	  $(BIN)/python fuzz/fuzz_trees.py -runs=$(FUZZ_TREE_RUNS) > fuzz/findings/trees.log 2>&1; rc=$$?; \
	  grep -E "^(Done|FINDING)|Uncaught|Traceback" fuzz/findings/trees.log; \
	  [ $$rc = 0 ] || { tail -n 40 fuzz/findings/trees.log; exit $$rc; }; \
	fi

# A short slice of the same (what CI runs besides the in-suite hypothesis mutation tests): every
# target, each after its seed corpus with runs for a few seconds of CPU (per input: sql about
# 0.13 s, one DuckDB opened; loads, patch, gltf, folders 10-20 ms; the Godot and MeshX readers
# well under 1 ms). FUZZ_SHORT's `target:runs` entries are FUZZ_TARGETS' form with a count of
# its own. All targets run from one process (fuzz/run.py): it instruments and imports brson once
# and forks a libFuzzer child a target (a process a target cost 44-56 s of CPU in all; the
# coverage each target reaches, libFuzzer's `cov:` over seeds 1-4, the same within its spread
# between seeds, less the import-time lines of modules a target used to import mid-run).
# The parent instruments only the brson modules the targets can import (106 of 159; a module
# it misses is instrumented in the child that imports it). Measured on a fresh clone's corpora:
# 24-27 s of CPU (user + sys) at load average 5-10 over seeds 1-3.
FUZZ_SHORT ?= loads:400 validate:1000 godot3:2000 godot4:2000 package:300 gltf:200 \
  meshx:2000 patch:400 folders:300 sql:20
fuzz-short: $(STAMP)
	$(MAKE) fuzz FUZZ_TREE_RUNS=0 FUZZ_SEED=1 FUZZ_TARGETS="$(FUZZ_SHORT)"

fixtures: $(STAMP)
	$(BIN)/python fixtures/make_fixtures.py
	$(BIN)/python fixtures/validate/make_validate_fixtures.py
	$(BIN)/python fixtures/gltf/make_gltf_fixtures.py

# JSON Schema of the document models and the JSON form (committed; a test checks they are current).
schemas: $(STAMP)
	$(BIN)/brson schema -o schemas

clean:
	rm -rf $(VENV) $(OUT) .pytest_cache .mypy_cache .ruff_cache build
	find brson -name '*.so' -delete
