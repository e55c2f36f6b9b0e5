# The two quick-start commands: `make demo` (install + the retrain loop on the embedded
# defaults) and `make test` (install + the test suite, which is what CI runs).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: install demo test lint

$(BIN)/aipipe: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

install: $(BIN)/aipipe

demo: install
	$(BIN)/python -m pipelines.demo

lint: install
	$(BIN)/ruff check .
	# the platform, the shared ML library (its TensorRT backend against the patched tensorrt-stubs in stubs/)
	# and every step
	$(BIN)/mypy --config-file pyproject.toml aipipe mlkit steps

test: install lint
	$(BIN)/python -m pytest -q -p no:cacheprovider
