# Every target creates .venv on first use: torch (CPU build) first, then the project. pip installs
# only uv; uv installs the rest, torch included, in seconds where pip takes half a minute for torch
# alone. uv looks in the same local wheel directories as pip (PIP_FIND_LINKS, where a machine keeps
# its CPU build of torch; a bare index would give a CUDA build).
# Bytecode: Python caches what it compiles (the default), even where the environment says not to
# (PYTHONDONTWRITEBYTECODE, set on some CI machines): without the cache, every process the tests
# start compiles everything it imports again. Compiling the whole environment at install
# (--compile-bytecode) would do the same but costs 75 s on two cores, most of it for torch files
# nothing imports; caching on first import costs a few seconds (measured on a fresh clone: install
# and lint 120 s -> 34 s, pytest 582 s -> 586 s).
unexport PYTHONDONTWRITEBYTECODE
PYTHON ?= python3.11
UV_VERSION := uv>=0.9,<1
# pytest-xdist workers: one per core by default (`make test PYTEST_WORKERS=1` runs serially)
PYTEST_WORKERS ?= auto
# pip's find-links, from the environment or pip's own configuration files
PIP_FIND_LINKS ?= $(shell $(PYTHON) -m pip config get global.find-links 2>/dev/null)
ifneq ($(strip $(PIP_FIND_LINKS)),)
export UV_FIND_LINKS ?= $(strip $(PIP_FIND_LINKS))
endif
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-llm ui docs bench lint clean

HS_VENV := .venv-hindsight
HS_STAMP := $(HS_VENV)/.installed

$(STAMP): pyproject.toml requirements-parser.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet "$(UV_VERSION)"
	$(BIN)/uv pip install --quiet --python $(BIN)/python torch==2.13.0
	$(BIN)/uv pip install --quiet --python $(BIN)/python -e ".[dev,hindsight]"
	$(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps --require-hashes -r requirements-parser.txt
	touch $(STAMP)

# A real Hindsight server for the tests (A2), in its own virtualenv: it needs protobuf>=7,
# which dagster and dbt exclude. Local embeddings need torch (CPU) and sentence-transformers.
$(HS_STAMP): Makefile
	test -x $(HS_VENV)/bin/python || $(PYTHON) -m venv $(HS_VENV)
	$(HS_VENV)/bin/pip install --quiet "$(UV_VERSION)"
	$(HS_VENV)/bin/uv pip install --quiet --python $(HS_VENV)/bin/python torch==2.13.0
	$(HS_VENV)/bin/uv pip install --quiet --python $(HS_VENV)/bin/python "hindsight-api-slim==1.1.0" "sentence-transformers>=3"
	touch $(HS_STAMP)

# demo and ui share one Dagster instance with `medallion materialize`: DAGSTER_HOME when set, else
# .medallion/dagster (dagster_project/instance.py). `make ui` runs dagster dev: the webserver and the
# daemon, whose sensors (on by default) land dropped inbox files, derive Silver and rebuild dbt and Gold.
demo: $(STAMP)
	$(BIN)/python -m dagster_project.demo

test: $(STAMP) $(HS_STAMP)
	$(BIN)/ruff check medallion dagster_project tests bench
	$(BIN)/lint-imports
	MEDALLION_HINDSIGHT_PYTHON=$(CURDIR)/$(HS_VENV)/bin/python $(BIN)/python -m pytest -q \
		-n $(PYTEST_WORKERS) --dist loadscope --no-loadscope-reorder --durations=15

# The openai providers against a real OpenAI-compatible server: llama-cpp-python built from source
# into .venv-llm (once; 10-25 minutes on two cores) serving a 270M GGUF from a registry package
# (scripts/test_llm.sh). Apart from `make test`, which stays within minutes; .ci/run runs both.
test-llm: $(STAMP)
	PYTHON=$(PYTHON) TEST_PYTHON=$(CURDIR)/$(BIN)/python bash scripts/test_llm.sh

ui: $(STAMP)
	$(BIN)/medallion ui

docs: $(STAMP)
	$(BIN)/medallion docs

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

lint: $(STAMP)
	$(BIN)/ruff check medallion dagster_project tests bench
	$(BIN)/lint-imports

clean:
	rm -rf $(VENV) $(HS_VENV) .venv-llm .medallion
