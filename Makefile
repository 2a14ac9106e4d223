# bvtest — set-up, main job, tests, benchmark. Every target creates the
# virtualenv on first use, so `make run` and `make test` work on a fresh clone.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
BVTEST := $(VENV)/bin/bvtest
STAMP  := $(VENV)/.installed-stamp

.PHONY: all run test test-oldest browser lint bench calibration sample clean

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

# The suite on 2 worker processes (pytest-xdist; CI's machines have 2 cores),
# each test file whole in one worker: its module fixtures are built once, and
# the files tests/test_api.py writes into tests/ are that worker's alone.
PARALLEL := -n 2 --dist loadfile

test: $(STAMP) browser
	$(VENV)/bin/ruff check bvtest_cli bvtest tests tools bench
	$(VENV)/bin/mypy bvtest_cli
	$(PY) -m pytest -q -rfEs $(PARALLEL)

# Chromium for the browser test of -f html: Debian's package (Playwright's own
# browser download is not reachable from here). Best effort: where it cannot be
# installed, the test skips and says why.
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	{ if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "make: installing Debian's chromium for the browser test" >&2; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    timeout 600 apt-get install -y -q chromium >/dev/null 2>&1 || \
	    { timeout 600 apt-get update -q >/dev/null 2>&1 && \
	      timeout 600 apt-get install -y -q chromium >/dev/null 2>&1; } || \
	    echo "make: chromium could not be installed; the browser test will skip" >&2; \
	  else \
	    echo "make: no chromium (apt-get install chromium); the browser test will skip" >&2; \
	  fi; }

# The declared floors, tested: the oldest version of every dependency, extra and
# test tool (constraints/oldest.txt, the lower bounds of pyproject.toml) on the
# oldest Python requires-python allows, in a virtualenv of their own.
OLDEST_VENV   ?= .venv-oldest
OLDEST_PY     := $(OLDEST_VENV)/bin/python
OLDEST_STAMP  := $(OLDEST_VENV)/.installed-stamp
# OLDEST_PYTHON=/path/to/python chooses the interpreter; by default the first
# Python 3.10 that runs: python3.10 on PATH (a pyenv shim may not), then pyenv's
# versions. Without one, $(PYTHON) with a note (numpy 1.24 has wheels up to 3.11).
OLDEST_PYTHON ?=

$(OLDEST_STAMP): pyproject.toml constraints/oldest.txt
	rm -rf $(OLDEST_VENV)
	@py="$(OLDEST_PYTHON)"; \
	if [ -z "$$py" ]; then \
	  for c in python3.10 $(HOME)/.pyenv/versions/3.10*/bin/python3.10; do \
	    if "$$c" -c 'import sys; assert sys.version_info[:2] == (3, 10)' 2>/dev/null; then \
	      py="$$c"; break; \
	    fi; \
	  done; \
	fi; \
	if [ -z "$$py" ]; then \
	  py="$(PYTHON)"; \
	  echo "make test-oldest: no Python 3.10 (the oldest requires-python allows) on PATH" \
	       "or in ~/.pyenv/versions: testing the oldest pins under $$($$py --version)" \
	       "instead; set OLDEST_PYTHON=/path/to/python3.10 to test the floor itself." >&2; \
	fi; \
	echo "$$py -m venv $(OLDEST_VENV)"; \
	"$$py" -m venv $(OLDEST_VENV)
	$(OLDEST_PY) -m pip install --quiet --disable-pip-version-check \
	    -c constraints/oldest.txt -e '.[test,plot,pandas]'
	touch $@

test-oldest: $(OLDEST_STAMP) browser
	$(OLDEST_VENV)/bin/ruff check bvtest_cli bvtest tests tools bench
	$(OLDEST_VENV)/bin/mypy bvtest_cli
	$(OLDEST_PY) -m pytest -q -rfEs $(PARALLEL)

lint: $(STAMP)
	$(VENV)/bin/ruff check bvtest_cli bvtest tests tools bench
	$(VENV)/bin/ruff format --check bvtest_cli bvtest tests tools bench
	$(VENV)/bin/mypy bvtest_cli

# Speed and memory figures, as ratios against baselines measured in the same run.
bench: $(STAMP)
	$(COMPILE)
	$(PY) bench/bench.py --extras

# The calibration study of bvtest's intervals, tests and standard errors: a
# simulation with a known truth (bench/calibration.py; ~12 minutes on 2 cores,
# the sampling-variance section included).
calibration: $(STAMP)
	$(PY) bench/calibration.py --replicates 1000 --jobs 2

# Regenerate the bundled sample track (deterministic).
sample: $(STAMP)
	$(PY) tools/gen_track.py --qrels-out qrels/qrels.txt --runs-out sample_runs

clean:
	rm -rf $(VENV) $(OLDEST_VENV) .bench-cache .pytest_cache .ruff_cache
