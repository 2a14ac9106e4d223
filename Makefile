# bvtest — set-up, main job, tests, benchmark. Every target creates the
# virtualenv on first use, so `make run` and `make test` work on a fresh clone.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
BVTEST := $(VENV)/bin/bvtest
STAMP  := $(VENV)/.installed-stamp

.PHONY: all run test lint bench sample clean

all: run

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test,plot]'
	touch $(STAMP)

# bvtest's own bytecode, as pip writes it for installed packages: an editable
# install leaves it to the first import, which never writes it when
# PYTHONDONTWRITEBYTECODE is set (then every command compiles ~70 ms of source).
COMPILE := $(PY) -m compileall -q bvtest_cli

# The main job: every analysis on the bundled sample track.
run: $(STAMP)
	$(COMPILE)
	$(BVTEST) eval --format table qrels/qrels.txt sample_runs/

test: $(STAMP)
	$(VENV)/bin/ruff check bvtest_cli bvtest tests tools bench
	$(PY) -m pytest -q

lint: $(STAMP)
	$(VENV)/bin/ruff check bvtest_cli bvtest tests tools bench
	$(VENV)/bin/ruff format --check bvtest_cli bvtest tests tools bench

# Speed and memory figures, as ratios against baselines measured in the same run.
bench: $(STAMP)
	$(COMPILE)
	$(PY) bench/bench.py --extras

# Regenerate the bundled sample track (deterministic).
sample: $(STAMP)
	$(PY) tools/gen_track.py --qrels-out qrels/qrels.txt --runs-out sample_runs

clean:
	rm -rf $(VENV) .bench-cache .pytest_cache .ruff_cache
