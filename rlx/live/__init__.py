"""OpenEnv servers, live: the only client that calls a Space (its own host), what a server offers
(introspection), checks cached in Redis, and the Hub's runtime (wake and restart).

What other packages may use (the foundation's stable surface):
  space_base_url(record, local_hosts)      where our server calls a Space, or SpaceRefused
  public_app_url(record)                   its https://<subdomain>.hf.space address (for an iframe)
  SpaceClient(base_url)                    get_json / post_json / request, own host only, capped and timed
  introspect(client, base_path)            the report (see its docstring)
  check_space(redis, record, ...)          the report, cached in Redis; cached_check, verified_openenv
  LiveError, SpaceRefused                  failures, each a sentence for the page

Built on it (import from their modules): episode.Episode (one episode over a server's /ws), slots (playground
session caps in Redis), play_view (action forms from schemas, observations drawn), task_api (the Task API read,
answers withheld), route_forms (forms for a server's own routes), bridge.SpaceTools (a Space as an MCP tool server).
"""

from rlx.live.space_checks import FRESH_S, cached_check, check_space, is_fresh, verified_openenv
from rlx.live.client import SpaceClient
from rlx.live.errors import LiveError, SpaceRefused
from rlx.live.space_hosts import public_app_url, space_base_url, space_subdomain
from rlx.live.introspect import introspect, list_tools

__all__ = ["FRESH_S", "LiveError", "SpaceClient", "SpaceRefused", "cached_check", "check_space", "introspect",
           "is_fresh", "list_tools", "public_app_url", "space_base_url", "space_subdomain", "verified_openenv"]
