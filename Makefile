# Two commands on a fresh machine: `make run` (the main job) and `make test` (the whole suite).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

run: install
	$(BIN)/yambak --help

test: install
	$(BIN)/python -m pytest

bench: install
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) build src/*.egg-info
