"""Hidden means absent: the one predicate every public layer asks about an environment the admin hid.

The admin app reads the settings file itself and is not affected. Loaders (datasets: rlx/web/environments/loaders.py, Spaces:
rlx/web/spaces/pages.py) raise the same "not found" a missing repository gets, so pages, JSON, MCP and the run form all
answer 404 alike; lists (searches, community, sitemaps, previews) leave hidden ids out.
"""

from __future__ import annotations

from flask import current_app

from rlx.sources.errors import RepoNotFound


def hidden_ids() -> frozenset[str]:
    """The ids the admin hid ("org/name" for a dataset, "space:org/name" for a Space)."""
    return current_app.extensions["rlx.settings"].get().hidden


def is_hidden(env_id: str) -> bool:
    return env_id in hidden_ids()


def refuse_if_hidden(repo_type: str, repo_id: str) -> None:
    """Raise the not-found a missing repository gets, worded as the Hub words it, when the admin hid this one."""
    env_id = f"space:{repo_id}" if repo_type == "space" else repo_id
    if is_hidden(env_id):
        raise RepoNotFound(f"{repo_type.capitalize()} {repo_id} does not exist on the Hub, or is private to others.")
