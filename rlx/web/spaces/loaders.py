"""Loading a Space for its pages (the Space page, its routes, its tasks, the playground, MCP): its record through the
one record loader (rlx/sources/record_cache.py: asked of the Hub at most every 30 s, kept per who may see it,
the last known record answering while the Hub is down), and its files index, built in this process per revision.
"""

from __future__ import annotations

from flask import abort, current_app

from rlx.adapters import Env
from rlx.adapters.registry import space_adapter
from rlx.auth.visitor import visitor_token
from rlx.sources import app_source
from rlx.sources.names import is_org_and_name
from rlx.sources.record_cache import app_record_cache
from rlx.store import app_store
from rlx.web.environments.hidden import refuse_if_hidden

ADAPTER = space_adapter()
MAX_INDEXES = 256


def load_space(org: str, name: str):
    """The Space's record for this visitor: 404 for a name that is no Space id or a hidden Space; while the Hub is
    down, the last record known here (a Space never seen here gets the Hub's error)."""
    if not is_org_and_name(org, name):
        abort(404, f"{org}/{name} is not a Space id.")
    refuse_if_hidden("space", f"{org}/{name}")
    record, outage = app_record_cache("space").lookup(f"{org}/{name}", visitor_token())
    if record is None:
        raise outage
    return record


def env_and_index(record):
    """The Space's files index, built in this process (one listing call), kept per revision."""
    env = Env(record, app_source(), app_store(), visitor_token())
    cache = current_app.extensions.setdefault("rlx.space_indexes", {})
    key = (record.id, record.sha)
    if key not in cache:
        if len(cache) >= MAX_INDEXES:
            cache.pop(next(iter(cache)))
        index = ADAPTER.build_index(env)
        cache[key] = (index, ADAPTER.overview(env, index))
    return env, *cache[key]


def local_hosts():
    """The Space hosts this deployment may call (RLX_SPACE_HOSTS)."""
    return current_app.config["RLX"].space_hosts
