# The two commands: `make demo` and `make test` (each sets everything up on a fresh machine).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
SAMPLE := fixtures/real/orange3134_loading_standin.brson
PACKAGE := fixtures/demo/orange3134_loading_standin.resonitepackage
OUT    := out
#: The viewer's three.js bundle (`brson view`), built from npm packages pinned by a lockfile.
THREE  := brson/view/static/vendor/three.bundle.min.js

.PHONY: demo test check lint typecheck bench fuzz fuzz-short fixtures schemas godot3 godot4 gltf-tools bench-gltf bench-scan clean vendor browser

#: The sources of the five optional C accelerators (setup.py), compiled by pip install: a
#: change to one rebuilds them.
CSRC   := brson/document/_rawc.c brson/model/_idscanc.c brson/ops/validate/_fieldsc.c \
          brson/graph/_spansc.c brson/godot/_tscnc.c brson/document/_bsonwire.h
#: The tests that exercise the accelerated modules, run a second time on the pure-Python path.
PURE_TESTS := tests/document tests/model tests/graph tests/ops tests/regressions tests/godot/test_tscnc.py

$(STAMP): pyproject.toml setup.py $(CSRC)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	sh scripts/ensure-cc.sh $(BIN)/python
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test,gltf,scan,dask]'
	touch $(STAMP)

# The card's jobs on a real package: extract a subtree (the thumbnail: mesh, material, texture)
# into a package of its own, validate it as CI would, diff it against its source, export it to
# glTF and Godot 4; then the byte-exact codec round trip. Outputs in out/.
demo: $(STAMP) $(THREE)
	mkdir -p $(OUT)
	$(BIN)/brson info $(PACKAGE)
	$(BIN)/brson extract $(PACKAGE) --slot Visual --package -o $(OUT)/visual.resonitepackage
	$(BIN)/brson validate --strict $(OUT)/visual.resonitepackage
	$(BIN)/brson diff $(PACKAGE) $(OUT)/visual.resonitepackage | tail -n 5; true
	$(BIN)/brson export-gltf $(OUT)/visual.resonitepackage -o $(OUT)/visual.glb
	$(BIN)/brson export-godot $(OUT)/visual.resonitepackage -o $(OUT)/visual.tscn --godot 4 --gltf
	$(BIN)/brson view $(PACKAGE) --html $(OUT)/standin.html
	$(BIN)/brson convert $(SAMPLE) $(OUT)/standin.lz4bson
	$(BIN)/brson convert $(OUT)/standin.lz4bson $(OUT)/standin.7zbson
	$(BIN)/brson convert $(OUT)/standin.7zbson $(OUT)/standin.brson
	cmp $(SAMPLE) $(OUT)/standin.brson && echo "round trip brotli -> lz4 -> lzma -> brotli: byte-identical"
	@echo "outputs in $(OUT)/: visual.resonitepackage (the extracted subtree), visual.glb (glTF 2.0), visual.tscn + visual.glb (Godot 4), standin.{lz4bson,7zbson,brson} (codecs), standin.html (brson view)"

$(THREE): brson/view/js/package-lock.json brson/view/js/entry.js scripts/vendor-three.sh
	sh scripts/vendor-three.sh

vendor: $(THREE)

# Debian's Chromium for the viewer's browser tests (tests/view; CI=true fails them without it).
browser:
	sh scripts/ensure-browser.sh

godot3:
	sh scripts/ensure-godot3.sh

# Godot 4.6 from Debian sid in a private prefix (~30 s, ~550 MB, cached in ~/.cache/brson).
godot4:
	sh scripts/get-godot4.sh

# The glTF checks' tools: Khronos glTF-Validator (npm, lockfile in tests/gltf/node) and Blender.
gltf-tools:
	sh scripts/ensure-gltf-tools.sh

# The whole suite, lint, types and a short atheris fuzz slice (~1 min). Godot 3 engine tests
# and Godot 4 engine tests always run in CI (CI=true fails them without the engine; outside CI
# they skip when an engine is missing). The suite runs with the C accelerators (CI=true
# fails when one is not built); the tests over the accelerated modules run again on the
# pure-Python path (BRSON_PURE_PYTHON=1).
test: $(STAMP) $(THREE) browser godot3 gltf-tools
	G4=$$( [ -n "$$BRSON_GODOT4" ] && echo "$$BRSON_GODOT4" || \
	       { [ "$$(id -u)" = 0 ] && timeout 900 sh scripts/get-godot4.sh 2>/dev/null | tail -n 1; } || true ); \
	BRSON_GODOT4="$$G4" $(BIN)/python -m pytest -q
	BRSON_PURE_PYTHON=1 $(BIN)/python -m pytest -q $(PURE_TESTS)
	$(MAKE) lint typecheck
	$(MAKE) fuzz-short

# ruff (lint and format) over everything the repo runs, and the layers contract in
# pyproject.toml (import-linter); all pinned in the test extra.
lint: $(STAMP)
	$(BIN)/ruff check brson tests fixtures fuzz benchmarks scripts
	$(BIN)/ruff format --check brson tests fixtures benchmarks fuzz scripts
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy brson

check: lint typecheck

# Benchmarks (docs/performance.md): issue 14's targets on the 10k and 100k worlds, met or
# missed; worlds cached in benchmarks/worlds/, results to docs/. BENCH_ARGS="--sizes 1000,10000"
# for a quick run, "--sizes 10000 --ops extract_1,validate" for some operations,
# "--sizes 10000 --outputs-only" for each operation's output sha256 alone (byte-identity before
# and after a change); Node (for the JS peer) is optional. The scan benchmark follows a full
# run only (no BENCH_ARGS). benchmarks/scaling.py --check fails the run on superlinear growth of
# the work unit tests cannot count (the regex engine's; docs/performance.md, "Complexity guards").
bench: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[bench]'
	-command -v npm >/dev/null && npm install --silent --no-audit --no-fund --prefix benchmarks/js
	$(BIN)/python benchmarks/run.py $(BENCH_ARGS)
	$(BIN)/python benchmarks/scaling.py --check
	if [ -z '$(BENCH_ARGS)' ]; then $(MAKE) bench-scan; fi

# brson scan on a generated 10,000-file library: 1 and 2 local workers, a 2-worker Dask
# LocalCluster, memory at 1k vs 10k files, report latency (docs/scan.md, docs/benchmarks-scan.json).
# BENCH_SCAN_ARGS="--files 2000 --small 500" for a quick run.
bench-scan: $(STAMP)
	$(BIN)/python benchmarks/scan.py $(BENCH_SCAN_ARGS)

# glTF export of a 100k-vertex skinned avatar and of the 10k-slot world against reading the same
# bytes (docs/benchmarks-gltf.json, docs/gltf-export.md).
bench-gltf: $(STAMP)
	$(BIN)/python benchmarks/gltf.py

# Long fuzz run (atheris/libFuzzer; FUZZ_RUNS executions per target, findings in fuzz/findings/).
FUZZ_RUNS    ?= 100000
FUZZ_TARGETS ?= loads validate godot3 godot4 package folders sql
# Hostile data trees through every command (fuzz/trees.py): ~0.4 s an input, so fewer runs;
# the test suite runs a fixed slice of it (tests/hardening/test_tree_fuzz.py).
FUZZ_TREE_RUNS ?= 3000
fuzz: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[fuzz]' || echo "atheris unavailable: plain mutation driver"
	mkdir -p fuzz/findings
	for t in $(FUZZ_TARGETS); do \
	  echo "== fuzz $$t (log: fuzz/findings/$$t.log)"; \
	  $(BIN)/python fuzz/fuzz_$$t.py -runs=$(FUZZ_RUNS) > fuzz/findings/$$t.log 2>&1; rc=$$?; \
	  grep -E "^(Done|stat::(number_of|average|slowest|peak)|fuzz target|atheris|FINDING)|Uncaught|Traceback" \
	    fuzz/findings/$$t.log; [ $$rc = 0 ] || { tail -n 40 fuzz/findings/$$t.log; exit $$rc; }; \
	done
	if [ "$(FUZZ_TREE_RUNS)" -gt 0 ]; then \
	  echo "== fuzz trees (log: fuzz/findings/trees.log)"; \
	  $(BIN)/python fuzz/fuzz_trees.py -runs=$(FUZZ_TREE_RUNS) > fuzz/findings/trees.log 2>&1; rc=$$?; \
	  grep -E "^(Done|FINDING)|Uncaught|Traceback" fuzz/findings/trees.log; \
	  [ $$rc = 0 ] || { tail -n 40 fuzz/findings/trees.log; exit $$rc; }; \
	fi

# A short slice of the same (what CI runs besides the in-suite hypothesis mutation tests).
fuzz-short: $(STAMP)
	$(MAKE) fuzz FUZZ_RUNS=2000 FUZZ_TREE_RUNS=0

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
