"""/mcp/d/<org>/<name>: every dataset over MCP (Streamable HTTP), read through its adapter like its pages."""

from __future__ import annotations

import functools

from flask import Blueprint, g, url_for
from werkzeug.exceptions import HTTPException

from rlx.mcp import DatasetTools, RpcError, handle
from rlx.mcp.jsonrpc import SERVER_ERROR
from rlx.mcp.snippets import app_base_url, client_snippets
from rlx.sources.errors import SourceError, Unavailable
from rlx.web.environments.loaders import load_env
from rlx.http.origin import checks_origin_itself

bp = Blueprint("mcp", __name__)
SPACE_SESSIONS_PER_ADDRESS = 10  # each bridged session may hold a Space's server busy


@bp.route("/mcp/d/<org>/<name>", methods=["GET", "POST", "DELETE"])
@checks_origin_itself
def dataset_endpoint(org: str, name: str):
    @functools.cache
    def server_for() -> DatasetTools:
        """The dataset's tools; a missing dataset or an unreachable source becomes a JSON-RPC error with the
        page's status (initialize answers it as that HTTP status, a later call as an error in the reply)."""
        try:
            return DatasetTools(load_env(org, name))
        except HTTPException as exc:
            raise RpcError(SERVER_ERROR, exc.description or "Not found.", exc.code or 500) from None
        except SourceError as exc:
            wait = exc.retry_after if isinstance(exc, Unavailable) else None
            raise RpcError(SERVER_ERROR, str(exc), exc.status, {"retryAfter": wait} if wait else None) from None

    landing = app_base_url() + url_for("envs.env_page", org=org, name=name) + "#mcp"
    return handle(f"/mcp/d/{org}/{name}", server_for, landing=landing)


@bp.route("/mcp/<org>/<name>", methods=["GET", "POST", "DELETE"])
@checks_origin_itself
def space_endpoint(org: str, name: str):
    """A Space's server over MCP (rlx.live.bridge), through the same transport as the datasets'."""
    from rlx.live import LiveError, SpaceRefused, cached_check, check_space, space_base_url
    from rlx.live.bridge import SpaceTools
    from rlx.queue import get_redis
    from rlx.web.spaces.loaders import load_space, local_hosts

    @functools.cache
    def server_for() -> SpaceTools:
        try:
            record = load_space(org, name)
            base_url = space_base_url(record, local_hosts())
            report = cached_check(get_redis(), record.id)
            if not report or not report.get("ok") or report.get("checking"):
                report = check_space(get_redis(), record, local_hosts(), max_age=600)
        except HTTPException as exc:
            raise RpcError(SERVER_ERROR, exc.description or "Not found.", exc.code or 500) from None
        except SpaceRefused as exc:
            raise RpcError(SERVER_ERROR, str(exc), 403) from None
        except SourceError as exc:
            wait = exc.retry_after if isinstance(exc, Unavailable) else None
            raise RpcError(SERVER_ERROR, str(exc), exc.status, {"retryAfter": wait} if wait else None) from None
        except LiveError as exc:
            raise RpcError(SERVER_ERROR, str(exc), 503, {"retryAfter": 30}) from None
        if not report or not report.get("ok"):
            sentence = (report or {}).get("error") or "Its server did not answer."
            raise RpcError(SERVER_ERROR, f"{sentence} Is the Space running?", 503, {"retryAfter": 30})
        return SpaceTools(record, base_url, report, redis=get_redis(),
                          session=lambda: getattr(getattr(g, "mcp_session", None), "id", None))

    landing = app_base_url() + url_for("spaces.space_page", org=org, name=name) + "#offers"
    return handle(f"/mcp/{org}/{name}", server_for, landing=landing, sessions_per_address=SPACE_SESSIONS_PER_ADDRESS)


@bp.app_context_processor
def _mcp_for_templates():
    return {"mcp_connect": mcp_connect}


def mcp_connect(repo_id: str, space: bool = False, private: bool = False) -> dict:
    """An MCP section's endpoint (a dataset's, or the bridge to a Space's server), as an absolute URL, and one
    snippet per client; for a private repository no endpoint at all, and the page says why (mcp_connect.html)."""
    if private:
        return {"url": None, "snippets": [], "space": space, "private": True}
    org, name = repo_id.split("/", 1)
    url = app_base_url() + url_for("mcp.space_endpoint" if space else "mcp.dataset_endpoint", org=org, name=name)
    return {"url": url, "snippets": client_snippets(repo_id, url), "space": space, "private": False}
