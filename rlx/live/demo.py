"""`rlx demo`'s live part: the bundled OpenEnv example (examples/spaces/rlx-examples/echo-env) served by a real
`openenv` server on loopback, so its Space page shows it live. Its venv is made by uv on the first start; when
that cannot be done the demo starts anyway and the Space page says why the server is not live."""

from __future__ import annotations

import sys
from pathlib import Path

from rlx.live.localenv import ECHO_ENV_DIR, LocalEnvError, ensure_venv, free_port, venv_ready

EXAMPLE_ID = "rlx-examples/echo-env"
EXAMPLE_SUBDOMAIN = "rlx-examples-echo-env"


def add_openenv_example(group, env: dict, redis_url: str, source: str) -> None:
    """Start the example's server as a child of `group` and point its Space at it (RLX_SPACE_HOSTS in `env`,
    which the web and workers inherit); or leave a note on its page saying why not."""
    from rlx.live.runtime import set_local_note
    from rlx.queue.connection import connect

    db = connect(redis_url)
    if Path(source).resolve() != ECHO_ENV_DIR.parent.parent.parent.resolve():
        return  # another folder, or the Hub: the bundled example is not in this catalog
    if not venv_ready():  # said only when there is something to wait for
        print("rlx: preparing the OpenEnv example's own environment (made once, under .tools/)…", file=sys.stderr)
    try:
        venv = ensure_venv()
    except LocalEnvError as exc:
        set_local_note(db, EXAMPLE_ID, f"The bundled OpenEnv server is not running on this machine: {exc}")
        print(f"rlx: the OpenEnv example is not live: {exc}", file=sys.stderr)
        return
    port = free_port()
    group.start("OpenEnv example", [str(venv / "bin" / "python"), "-m", "uvicorn", "--app-dir", str(ECHO_ENV_DIR),
                                    "server.app:app", "--host", "127.0.0.1", "--port", str(port),
                                    "--log-level", "warning"], restart=True)
    local = f"{EXAMPLE_SUBDOMAIN}=http://127.0.0.1:{port}"
    env["RLX_SPACE_HOSTS"] = ",".join(filter(None, (env.get("RLX_SPACE_HOSTS"), local)))
    set_local_note(db, EXAMPLE_ID, None)
