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
	# all of aipipe/ (the executor's mixins excepted: pyproject says why), the convert step (its TensorRT backend
	# against the patched tensorrt-stubs in stubs/) and the inference server
	$(BIN)/mypy --config-file pyproject.toml aipipe steps/convert_trt steps/deploy/server

test: install lint
	$(BIN)/python -m pytest -q -p no:cacheprovider
