# The two commands (see README.md): `make demo` runs the app on the bundled catalog, `make test` runs the suite.
SHELL := /bin/bash
PYTHON ?= python3
UV := $(CURDIR)/.tools/bin/uv
export UV_PYTHON_DOWNLOADS := never
export UV_PROJECT_ENVIRONMENT := $(CURDIR)/.venv

.PHONY: demo test bench browsers clean

# uv is not on a fresh machine: install it once into .tools/ with the machine's Python 3.12.
$(UV):
	@$(PYTHON) -m venv .tools && .tools/bin/pip install --quiet --disable-pip-version-check uv

demo: $(UV)
	@$(UV) sync --frozen --no-dev --quiet
	@.venv/bin/rlx demo

test: $(UV)
	@$(UV) sync --frozen --quiet
	@.venv/bin/python -m pytest $(PYTEST_ARGS)

bench: $(UV)
	@$(UV) sync --frozen --quiet
	@.venv/bin/python -m benchmarks.run

clean:
	rm -rf .venv .tools data
