# Two commands on a fresh machine: `make run` (the main job) and `make test` (the whole suite).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Pyodide (npm) for the score-keeper's offline engine: served by the app, kept by its service worker.
PYODIDE_VERSION := 0.27.8
PYODIDE_DIR := src/yambak/web/static/pyodide
PYODIDE_STAMP := $(PYODIDE_DIR)/.version-$(PYODIDE_VERSION)
# The tools that check the page scripts (TypeScript, json-schema-to-typescript): package.json, exact versions.
NODE_STAMP := node_modules/.installed
TYPES := src/yambak/web/static/protocol.d.ts

.PHONY: messages install run test lint types screenshots bench clean mutants

install: $(STAMP) $(PYODIDE_STAMP) $(NODE_STAMP)

$(NODE_STAMP): package.json package-lock.json $(PYODIDE_STAMP)
	npm ci --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

$(PYODIDE_STAMP): scripts/fetch-pyodide.sh
	scripts/fetch-pyodide.sh $(PYODIDE_VERSION) $(PYODIDE_DIR)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,rl]'
	$(BIN)/python -m yambak.solver.warm  # compile the solver's kernels once (tens of seconds of CPU), not on a first run
	touch $(STAMP)

# The web table on http://localhost:8000, SQLite file var/yambak.db (YAMBAK_DATABASE_URL for PostgreSQL).
run: install
	$(BIN)/yambak serve --host 127.0.0.1 --port 8000

# Checks that stay: ruff, mypy and vulture (dead code; pyproject.toml, vulture_whitelist.py); the page scripts under TypeScript (tsconfig*.json), with the
# socket protocol's types generated from its models (`make types` writes them; here they must be current).
lint: install
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/mypy
	$(BIN)/vulture
	npm run --silent check
	$(BIN)/python scripts/protocol.py --check
	npm run --silent types | diff -q - $(TYPES) >/dev/null || { echo "$(TYPES) is stale: make types"; exit 1; }

# Every msgid (templates, scripts, server texts and every preset file's texts) added, empty, to the catalogs.
messages:
	$(BIN)/python scripts/messages.py --update

# The protocol's JSON Schema from its pydantic models, then its TypeScript declarations for the page scripts.
types: install
	$(BIN)/python scripts/protocol.py
	npm run --silent types > $(TYPES)

# The whole suite; scripts/test-services.sh installs and starts PostgreSQL, Redis and Chromium (Debian packages)
# and prints the two URLs on one line each. Everything but the browser tests runs on two workers (pytest-xdist,
# a file per worker at a time); the browser tests then run apart from it, on two workers of their own (a file
# each, each with its server, database and Chromium), with the Schemathesis fuzz: they wait on pages and timers
# that a machine busy with the other half would slow, and a worker that held the session's browser would break
# the other tests' asyncio.run. (A hold lost on a loaded machine kept them in one process for a while: a press
# on a tumbling die's pip, redrawn before the release, made no click; the pips no longer take the press.)
# Bytecode is written (this machine's environment sets PYTHONDONTWRITEBYTECODE): else every import compiles its
# module from source, in server threads too, and CPython 3.11 can fail an ast.parse made in the main thread at
# the same moment ("AST constructor recursion depth mismatch", seen once in tests/engine/test_surface.py).
FUZZ = tests/server/test_fuzz.py
test: install lint
	unset PYTHONDONTWRITEBYTECODE; \
	urls="$$(scripts/test-services.sh)"; \
	pg="$$(echo "$$urls" | grep '^postgresql' || true)"; redis="$$(echo "$$urls" | grep '^redis' || true)"; \
	export YAMBAK_TEST_POSTGRES_URL="$${YAMBAK_TEST_POSTGRES_URL:-$$pg}"; \
	export YAMBAK_TEST_REDIS_URL="$${YAMBAK_TEST_REDIS_URL:-$$redis}"; \
	$(BIN)/python -m pytest -n 2 --dist loadfile --ignore=tests/web --ignore=$(FUZZ) --durations=15; rest=$$?; \
	$(BIN)/python -m pytest -n 2 --dist loadfile tests/web $(FUZZ) --durations=15; browser=$$?; \
	echo "make test: on two workers: exit $$rest; browser tests and fuzzing: exit $$browser"; test $$rest -eq 0 -a $$browser -eq 0

# Refresh docs/screenshots/ from the browser tests.
screenshots: install
	YAMBAK_SCREENSHOTS=1 $(BIN)/python -m pytest tests/web -q

# Mutation testing (docs/testing.md), not part of make test: hours on two cores. MUTANTS narrows it to names
# (make mutants MUTANTS='yambak.rules.scoring*'), JOBS sets the processes; the results stay in mutants/.
MUTANTS ?=
JOBS ?= 2
mutants: install
	$(BIN)/mutmut run --max-children $(JOBS) $(MUTANTS); status=$$?; \
	$(BIN)/mutmut results; exit $$status

bench: install
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) build src/*.egg-info $(PYODIDE_DIR) node_modules
