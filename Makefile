# The two commands (see README.md): `make demo` runs the app on the bundled catalog, `make test` runs the suite.
SHELL := /bin/bash
PYTHON ?= python3
UV := $(CURDIR)/.tools/bin/uv
export UV_PYTHON_DOWNLOADS := never
export UV_PROJECT_ENVIRONMENT := $(CURDIR)/.venv

.PHONY: demo test bench agents clean

# uv is not on a fresh machine: install it once into .tools/ with the machine's Python 3.12.
$(UV):
	@echo "make: installing uv into .tools/ (once)…"
	@$(PYTHON) -m venv .tools && .tools/bin/pip install --quiet --disable-pip-version-check uv

# --inexact: one target's sync never removes what another installed (pytest for test, datasette for bench).
demo: $(UV)
	@test -x .venv/bin/rlx || echo "make demo: installing the app's packages into .venv/ (once)…"
	@$(UV) sync --frozen --inexact --quiet
	@.venv/bin/rlx demo

# The suite runs on TEST_WORKERS pytest-xdist processes (each with its own Redis, store and ports; `make test
# TEST_WORKERS=0` runs it in one). Tests that must not overlap share an xdist_group, hence --dist loadgroup.
# Every Python process the tests start caches its bytecode under .tools/pycache (never beside the sources: examples/
# and fixture folders are data the app lists) even where PYTHONDONTWRITEBYTECODE is set: each gunicorn, worker and
# CLI process would otherwise compile its imports afresh, and pytest would rewrite every test module again.
TEST_WORKERS ?= 3
test: $(UV)
	@$(UV) sync --frozen --inexact --quiet
	@env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX=$(CURDIR)/.tools/pycache \
		.venv/bin/python -m pytest -n $(TEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

# The benchmarks (benchmarks/README.md) rewrite benchmarks/RESULTS.md; `make bench BENCH_ARGS=--quick` is a smoke run.
bench: $(UV)
	@command -v wrk >/dev/null || (apt-get update -qq && apt-get install -y -qq wrk >/dev/null)
	@$(UV) sync --frozen --inexact --quiet --group bench
	@.venv/bin/python -m benchmarks.run $(BENCH_ARGS)

# The agents the local sandbox runs besides oracle, nop and terminus-2, installed ahead of time and pinned
# (docs/OPERATIONS.md, "Agents"); idempotent, so CI and `make demo` can call it every time.
agents: $(UV)
	@UV=$(UV) deploy/agents/install.sh

clean:
	rm -rf .venv .tools data
