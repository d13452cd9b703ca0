# causalarena: two commands.  `make demo` sets everything up and runs the main job;
# `make test` runs the tests.  Both create .venv when it is missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test test-slow bench bench-temporal lint format clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[all,test]"
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/causalarena demo --out release

# two pytest-xdist workers (CI has 2 cores); one file per worker at a time (--dist loadfile), so
# a module's fixtures are built once; the session builds are shared (tests/conftest.py)
TEST_WORKERS ?= 2

test: $(STAMP)
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile

test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -m slow

DOTIME_VENV ?= /tmp/dotime-venv

# peer simulators for bench_generate.py; avici with --no-deps (it pins numpy<2, pyarrow==10)
$(VENV)/.bench-stamp: pyproject.toml $(STAMP)
	-$(BIN)/python -m pip install -q -e ".[bench]" && $(BIN)/python -m pip install -q --no-deps avici
	@touch $@

bench: $(STAMP) $(VENV)/.bench-stamp
	$(BIN)/python bench/bench_generate.py
	$(BIN)/python bench/bench_build.py --scale mini
	$(BIN)/python bench/bench_score.py
	$(BIN)/python bench/bench_load.py
	$(BIN)/python bench/bench_run.py
	$(BIN)/python bench/bench_stream.py
	@test -x $(DOTIME_VENV)/bin/python || ($(PYTHON) -m venv $(DOTIME_VENV) && \
	  $(DOTIME_VENV)/bin/pip install -q dotime==0.2.0) || echo "dotime peer unavailable"
	$(BIN)/python bench/bench_temporal.py --n 1000 10000 --dotime-python $(DOTIME_VENV)/bin/python

# causalarena vs dotime 0.2.0 temporal throughput only (generic pairs and regime episodes)
bench-temporal: $(STAMP)
	@test -x $(DOTIME_VENV)/bin/python || ($(PYTHON) -m venv $(DOTIME_VENV) && \
	  $(DOTIME_VENV)/bin/pip install -q dotime==0.2.0) || echo "dotime peer unavailable"
	$(BIN)/python bench/bench_temporal.py --n 1000 --regime-n 150 --dotime-python $(DOTIME_VENV)/bin/python

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	PYTHONPATH=src $(BIN)/lint-imports

format: $(STAMP)
	$(BIN)/ruff format src tests bench
	$(BIN)/ruff check --fix src tests bench

clean:
	rm -rf release release-semantic release-formula release-lab release-real predictions reports bench/out .pytest_cache
