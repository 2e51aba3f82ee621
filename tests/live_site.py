"""The app under gunicorn (gevent, the production path) on loopback, over a source folder of Spaces whose servers
run on this machine (RLX_SPACE_HOSTS), with the playground's waits shortened (tests/play_app.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from rlx.live.localenv import free_port
from tests.conftest import EXAMPLES

ECHO = "rlx-examples/echo-env"


def space_folder(source: Path, space_id: str, host_subdomain: str) -> None:
    """A running OpenEnv-tagged Space at `space_id` whose Hub host is <host_subdomain>.hf.space."""
    folder = source / "spaces" / space_id
    folder.mkdir(parents=True)
    (folder / "README.md").write_text(f"---\ntitle: {space_id}\nsdk: docker\ntags: [openenv]\n---\n# {space_id}\n")
    (folder / ".hub.json").write_text(json.dumps({"host": f"https://{host_subdomain}.hf.space", "sdk": "docker",
                                                  "runtime": {"stage": "RUNNING"}}))


def start_site(root: Path, redis_url: str, hosts: dict[str, str], spaces: dict[str, str]):
    """`hosts`: subdomain -> loopback URL; `spaces`: Space id -> subdomain (besides the bundled echo-env).
    Returns (url, process)."""
    source = root / "source"
    shutil.copytree(EXAMPLES / "spaces" / ECHO, source / "spaces" / ECHO)
    for space_id, subdomain in spaces.items():
        space_folder(source, space_id, subdomain)
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_url, "STORAGE_DIR": str(root / "data"), "RLX_SOURCE": str(source),
           "SESSION_SECRET": "test-secret", "RLX_TEST_STEP_TIMEOUT_S": "1.5", "RLX_TEST_IDLE_S": "2",
           "RLX_SPACE_HOSTS": ",".join(f"{k}={v}" for k, v in hosts.items())}
    process = subprocess.Popen([sys.executable, "-m", "gunicorn", "-k", "gevent", "-w", "1", "-b",
                                f"127.0.0.1:{port}", "--log-level", "warning", "tests.play_app:app"], env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url + "/healthz", timeout=1)
            return url, process
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                raise AssertionError("the server did not start") from None
            time.sleep(0.1)


def stop(process) -> None:
    process.terminate()
    process.wait(10)
