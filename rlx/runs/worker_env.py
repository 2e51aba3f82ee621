"""What of the deployment's secrets a worker holds: as little as its jobs need.

A worker never signs a cookie, answers /metrics or talks to the OAuth provider, so it starts without the web's
session secret, OAuth client secret and metrics token (`worker_config`). A rollout's work horse (RQ forks one
per job) then drops every other secret-looking variable too (`drop_rollout_secrets`): the Redis URL, the Job's
HF_TOKEN, any API key of the operator's. Task templates never read the environment anyway (rlx/runs/task_vars.py);
this is the second wall, for whatever in Harbor or litellm might still look at os.environ. The visitor's model
key is set afterwards, in this horse only, for the agent's model client (rlx/runs/runner.py).
"""

from __future__ import annotations

import os
import re
import secrets

WEB_ONLY = ("SESSION_SECRET", "OAUTH_CLIENT_SECRET", "METRICS_TOKEN")
ROLLOUT_DROPPED = (*WEB_ONLY, "REDIS_URL", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "OPENAI_API_KEY")
# Harbor's own idea of a secret-looking name (utils/env.py), plus URLs that may carry a password.
_SECRET_LOOKING = re.compile(r"KEY|SECRET|TOKEN(?!S)|PASSWORD|PASSWD|CREDENTIAL|AUTH|_URL$|_DSN$", re.IGNORECASE)
_KEPT = ("HF_ENDPOINT", "HF_VIEWER_URL", "HF_ROUTER_URL", "RLX_PUBLIC_URL", "RLX_ADMIN_URL")


def worker_config(environ=None):
    """The Config a worker runs with: read with the web-only secrets gone from `environ` (default os.environ),
    and a throwaway session secret, so the stored one (STORAGE_DIR/session-secret) is never read either."""
    from rlx.config import Config

    environ = os.environ if environ is None else environ
    for name in WEB_ONLY:
        environ.pop(name, None)
    return Config.from_env({**environ, "SESSION_SECRET": secrets.token_urlsafe(32)})


def drop_rollout_secrets(environ=None) -> list[str]:
    """Remove from this process's environment every variable a rollout does not need that could hold a secret;
    the names removed."""
    environ = os.environ if environ is None else environ
    dropped = [name for name in list(environ)
               if name in ROLLOUT_DROPPED or (_SECRET_LOOKING.search(name) and name not in _KEPT)]
    for name in dropped:
        environ.pop(name, None)
    return dropped


__all__ = ["ROLLOUT_DROPPED", "WEB_ONLY", "drop_rollout_secrets", "worker_config"]
