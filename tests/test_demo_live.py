"""`make demo` (rlx demo) serves the bundled OpenEnv example with a real openenv server on loopback and shows it
live on its Space page; when the server's environment cannot be made, the demo still starts and the page says why."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import httpx2

from rlx import create_app
from rlx.live import demo
from rlx.live.localenv import LocalEnvError, ensure_venv, free_port

PAGE = "/s/rlx-examples/echo-env"


def test_rlx_demo_shows_the_bundled_openenv_example_live(tmp_path):
    ensure_venv()  # made once (the fixture servers share it), so this test waits on the demo, not on uv
    port = free_port()
    env = {**os.environ, "STORAGE_DIR": str(tmp_path / "data")}
    for name in ("REDIS_URL", "RLX_SOURCE", "RLX_SPACE_HOSTS"):
        env.pop(name, None)
    process = subprocess.Popen([sys.executable, "-m", "rlx.cli", "demo", "--port", str(port), "--workers", "1"],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline, html = time.monotonic() + 180, ""
        while time.monotonic() < deadline and "yes, checked" not in html:
            assert process.poll() is None, process.stdout.read().decode(errors="replace")
            try:
                html = httpx2.get(f"http://127.0.0.1:{port}{PAGE}?check=1", timeout=30, trust_env=False).text
            except httpx2.HTTPError:
                html = ""
            time.sleep(0.5)
        assert "yes, checked" in html, "the demo never showed the example live"
        assert "OpenEnv Space" in html and "Running" in html and "echo_with_length" in html
    finally:
        os.killpg(process.pid, signal.SIGINT)
        process.wait(30)


def test_without_its_environment_the_demo_starts_and_the_page_says_why(make_config, redis_url, redis_client,
                                                                       monkeypatch):
    def cannot(*args, **kwargs):
        raise LocalEnvError("making the openenv environment failed: no network")

    class Group:
        started = []

        def start(self, name, args):
            self.started.append(name)

    monkeypatch.setattr(demo, "ensure_venv", cannot)
    env, group = {}, Group()
    config = make_config()
    demo.add_openenv_example(group, env, redis_url, config.source)
    assert group.started == [] and "RLX_SPACE_HOSTS" not in env
    html = create_app(config).test_client().get(PAGE).get_data(as_text=True)
    assert "The bundled OpenEnv server is not running on this machine" in html and "no network" in html
