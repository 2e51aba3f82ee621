"""The app under gunicorn (gevent, the production path: tests/servers.py) on loopback, over a source folder of
Spaces whose servers run on this machine (RLX_SPACE_HOSTS), with the playground's waits shortened
(tests/play_app.py)."""

from __future__ import annotations

import json
import shutil
from contextlib import contextmanager
from pathlib import Path

from tests.conftest import EXAMPLES
from tests.servers import gunicorn

ECHO = "rlx-examples/echo-env"


def space_folder(source: Path, space_id: str, host_subdomain: str) -> None:
    """A running OpenEnv-tagged Space at `space_id` whose Hub host is <host_subdomain>.hf.space."""
    folder = source / "spaces" / space_id
    folder.mkdir(parents=True)
    (folder / "README.md").write_text(f"---\ntitle: {space_id}\nsdk: docker\ntags: [openenv]\n---\n# {space_id}\n")
    (folder / ".hub.json").write_text(json.dumps({"host": f"https://{host_subdomain}.hf.space", "sdk": "docker",
                                                  "runtime": {"stage": "RUNNING"}}))


@contextmanager
def served_site(root: Path, redis_url: str, hosts: dict[str, str], spaces: dict[str, str], idle_s: int = 120,
                episode_idle_s: float = 45, recheck_s: float = 30, turn_s: float = 300):
    """`hosts`: subdomain -> loopback URL; `spaces`: Space id -> subdomain (besides the bundled echo-env).
    A playground session ends after `idle_s` without a message from its visitor: short only for the test of that,
    since on a loaded machine a test's own pauses can last a few seconds; likewise `episode_idle_s`, after which
    an episode gives its server back, `turn_s`, how long a player keeps a server once someone waits, and `recheck_s`,
    the floor between two checks of a Space. Yields the site's URL while the block runs."""
    source = root / "source"
    shutil.copytree(EXAMPLES / "spaces" / ECHO, source / "spaces" / ECHO)
    for space_id, subdomain in spaces.items():
        space_folder(source, space_id, subdomain)
    env = {"REDIS_URL": redis_url, "STORAGE_DIR": str(root / "data"), "RLX_SOURCE": str(source),
           "SESSION_SECRET": "test-secret", "RLX_TEST_STEP_TIMEOUT_S": "1.5", "RLX_TEST_IDLE_S": str(idle_s),
           "RLX_TEST_EPISODE_IDLE_S": str(episode_idle_s), "RLX_TEST_MIN_RECHECK_S": str(recheck_s),
           "RLX_TEST_TURN_S": str(turn_s),
           "RLX_SPACE_HOSTS": ",".join(f"{k}={v}" for k, v in hosts.items())}
    with gunicorn(env, app="tests.play_app:app") as url:
        yield url
