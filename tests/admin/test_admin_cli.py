"""`rlx admin` as an operator starts it: the real command, on a free port, answers in a browser."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.error
import urllib.request

from tests.processes import free_port, wait_until


def _status(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError:
        return None


def test_rlx_admin_starts_and_its_sign_in_page_answers(tmp_path, redis_url):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "HF_ENDPOINT"}
    env.update(REDIS_URL=redis_url, STORAGE_DIR=str(tmp_path / "store"), SESSION_SECRET="test-secret",
               ADMIN_ORG="rlx-admins")
    log_path = tmp_path / "admin.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen([sys.executable, "-m", "rlx.cli", "admin", "--port", str(port)], env=env,
                                   stdout=log, stderr=subprocess.STDOUT)
    try:
        answered = wait_until(lambda: process.poll() is not None or _status(f"http://127.0.0.1:{port}/signin"),
                              timeout=60)
        log_text = log_path.read_text(errors="replace")
        assert process.poll() is None, f"rlx admin exited at start:\n{log_text}"
        assert answered == 200
        assert "The admin is running on" in log_text
        assert "Traceback" not in log_text
    finally:
        process.terminate()
        process.wait(15)
