# Every target creates .venv on first use: torch (CPU build) first, then the project.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test ui docs bench lint clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m dagster_project.demo

test: $(STAMP)
	$(BIN)/ruff check dagster_project tests bench
	$(BIN)/python -m pytest -q

ui: $(STAMP)
	$(BIN)/medallion ui

docs: $(STAMP)
	$(BIN)/medallion docs

bench: $(STAMP)
	$(BIN)/python bench/ingest.py
	$(BIN)/python bench/derive.py
	$(BIN)/python bench/threshold.py

lint: $(STAMP)
	$(BIN)/ruff check dagster_project tests bench

clean:
	rm -rf $(VENV) .medallion
