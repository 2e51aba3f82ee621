"""Test-wide setup: an isolated environment per test, and the stand-ins for the outside world."""

import os

# huggingface_hub reads these at import time: no telemetry, no Xet, no implicit server token, a private cache.
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("HF_HUB_DISABLE_XET", "1")
os.environ.setdefault("HF_HUB_DISABLE_IMPLICIT_TOKEN", "1")
os.environ.setdefault("NO_PROXY", "127.0.0.1,localhost")

pytest_plugins = ["tests.stand_ins.hub_fixtures"]
