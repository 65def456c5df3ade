# The two commands users type are `make demo` and `make test`; both install what is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.webdojo-installed
PYTEST_ARGS ?=
# Test processes. Two cut the suite's time by a third on a 2-core machine (15:30 -> 9:44): much
# of it waits on browsers and child processes. A file's tests stay in one process (its fixtures
# are set up once). 0: every test in pytest's own process.
TEST_WORKERS ?= 2
TORCH ?= torch==2.13.0
# verl 0.9.1 pins transformers<5.11 (5.10.4), older than .venv's: its adapter's tests
# (tests/adapters/test_verl.py, skipped in .venv) run in an environment of their own, which is
# also where the trainer is tested on the lowest transformers webdojo allows (pyproject.toml)
VERL_VENV := .venv-verl
VERL_STAMP := $(VERL_VENV)/.webdojo-installed
VERL_TESTS := tests/adapters/test_verl.py tests/training/test_tiny_models.py tests/training/test_trainer.py
# BrowserGym 0.14.3 pins an older Playwright (and numpy, gymnasium): `webdojo bench
# compare-browsergym` runs it in an environment of its own. No `playwright install`: both sides
# launch the system Chromium that webdojo finds. psutil: its side's CPU per step.
BROWSERGYM_PYTHON ?= python3.11
BROWSERGYM_VENV := .venv-browsergym
BROWSERGYM_STAMP := $(BROWSERGYM_VENV)/.webdojo-installed
BROWSERGYM_PINS := 'browsergym-core==0.14.3' 'psutil==7.2.2'
# The documentation site (mkdocs.yml): built offline, strictly (a dead link or a missing page is an
# error). The variables quiet the banners that MkDocs' plugins print about MkDocs 2.
DOCS_ENV := NO_MKDOCS_2_WARNING=1 DISABLE_MKDOCS_2_WARNING=true
DOCS_ADDR ?= 127.0.0.1:8000

# The inner loop: the tests that neither drive Chromium nor take more than a few seconds.
FAST_MARKERS := not slow and not browser

.PHONY: setup demo test test-fast test-verl browsergym-venv check lint typecheck clean docs docs-serve

setup: $(STAMP)
	@scripts/ensure-chromium.sh $(BIN)/python

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	@# torch first, pinned to the CPU build that lies on this kind of machine; a later range that
	@# it satisfies installs nothing more (a bare `torch` would pull a CUDA build of several GB)
	$(BIN)/python -m pip install --quiet '$(TORCH)'
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@# AgentRewardBench's 1,302 expert labels ship as a CSV in its wheel; reading them needs none
	@# of its dependencies (torch, browsergym, an older Playwright), so they are not installed
	$(BIN)/python -m pip install --quiet --no-deps 'agent-reward-bench==0.1.2'
	@# MiniWoB++'s task pages (tests/envs, --tasks miniwob): only its html/ tree is used, so none
	@# of its dependencies (Selenium, Gymnasium) are installed
	$(BIN)/python -m pip install --quiet --no-deps 'miniwob==1.1.0'
	@touch $(STAMP)

$(VERL_STAMP): pyproject.toml
	@test -x $(VERL_VENV)/bin/python || $(PYTHON) -m venv $(VERL_VENV)
	$(VERL_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VERL_VENV)/bin/python -m pip install --quiet '$(TORCH)'
	$(VERL_VENV)/bin/python -m pip install --quiet -e '.[verl,verl-test]'
	@touch $(VERL_STAMP)

# about a minute (56 s on 2 busy cores)
$(BROWSERGYM_STAMP):
	@test -x $(BROWSERGYM_VENV)/bin/python || $(BROWSERGYM_PYTHON) -m venv $(BROWSERGYM_VENV)
	$(BROWSERGYM_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(BROWSERGYM_VENV)/bin/python -m pip install --quiet $(BROWSERGYM_PINS)
	@touch $(BROWSERGYM_STAMP)

browsergym-venv: $(BROWSERGYM_STAMP)

demo: setup
	$(BIN)/webdojo run --out runs/demo
	@echo
	@echo "Run directory: runs/demo  (steps.jsonl, episodes.jsonl, screenshots/)"
	@echo "Report:        runs/demo/report.html"
	@echo "Browse:        $(BIN)/webdojo view runs/demo"

test: setup $(BROWSERGYM_STAMP)
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile $(PYTEST_ARGS)
	@$(MAKE) --no-print-directory test-verl

test-fast: setup
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile -m "$(FAST_MARKERS)" $(PYTEST_ARGS)

test-verl: setup $(VERL_STAMP)
	@# the older stack warns about numpy 2's copy keyword; the main suite keeps warnings errors
	$(VERL_VENV)/bin/python -m pytest -W "ignore::DeprecationWarning" $(VERL_TESTS)

docs: $(STAMP)
	$(DOCS_ENV) $(BIN)/mkdocs build --strict --site-dir site

docs-serve: $(STAMP)
	$(DOCS_ENV) $(BIN)/mkdocs serve --strict --dev-addr $(DOCS_ADDR)

lint: setup
	$(BIN)/ruff check src tests docs/gen
	$(BIN)/ruff format --check src tests docs/gen

typecheck: setup
	$(BIN)/mypy

check: lint typecheck test

clean:
	rm -rf $(VENV) $(VERL_VENV) $(BROWSERGYM_VENV) build dist src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
