# Two commands on a fresh machine: `make run` (the main job) and `make test` (the whole suite).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test lint screenshots bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,rl]'
	$(BIN)/python -m yambak.solver.warm  # compile the solver's kernels once (about 5 s), not on a first run
	touch $(STAMP)

# The web table on http://localhost:8000, SQLite file var/yambak.db (YAMBAK_DATABASE_URL for PostgreSQL).
run: install
	$(BIN)/yambak serve --host 127.0.0.1 --port 8000

# Checks that stay: ruff (E, F, I, B, UP) and mypy (--strict on rules/ and engine/), configured in pyproject.toml.
lint: install
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/mypy

# The whole suite; scripts/test-services.sh installs and starts PostgreSQL and Chromium (Debian packages).
test: install lint
	url="$$(scripts/test-services.sh)"; \
	YAMBAK_TEST_POSTGRES_URL="$${YAMBAK_TEST_POSTGRES_URL:-$$url}" $(BIN)/python -m pytest

# Refresh docs/screenshots/ from the browser tests.
screenshots: install
	YAMBAK_SCREENSHOTS=1 $(BIN)/python -m pytest tests/web -q

bench: install
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) build src/*.egg-info
