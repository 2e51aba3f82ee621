# The two commands (see README.md): `make demo` runs the app on the bundled catalog, `make test` runs the suite.
SHELL := /bin/bash
PYTHON ?= python3
UV := $(CURDIR)/.tools/bin/uv
export UV_PYTHON_DOWNLOADS := never
export UV_PROJECT_ENVIRONMENT := $(CURDIR)/.venv

.PHONY: demo test bench clean

# uv is not on a fresh machine: install it once into .tools/ with the machine's Python 3.12.
$(UV):
	@$(PYTHON) -m venv .tools && .tools/bin/pip install --quiet --disable-pip-version-check uv

# --inexact: one target's sync never removes what another installed (pytest for test, datasette for bench).
demo: $(UV)
	@$(UV) sync --frozen --inexact --quiet
	@.venv/bin/rlx demo

test: $(UV)
	@$(UV) sync --frozen --inexact --quiet
	@.venv/bin/python -m pytest $(PYTEST_ARGS)

# The benchmarks (benchmarks/README.md) rewrite benchmarks/RESULTS.md; `make bench BENCH_ARGS=--quick` is a smoke run.
bench: $(UV)
	@command -v wrk >/dev/null || (apt-get update -qq && apt-get install -y -qq wrk >/dev/null)
	@$(UV) sync --frozen --inexact --quiet --group bench
	@.venv/bin/python -m benchmarks.run $(BENCH_ARGS)

clean:
	rm -rf .venv .tools data
