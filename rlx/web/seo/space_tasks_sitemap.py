"""/sitemap-space-tasks.xml: the task pages of the catalog's Spaces, from what each server's last check advertised
(its Task API splits and their sizes, kept in Redis by rlx.live.space_checks), so a Space's tasks can be found without
anyone calling its server when the sitemap is read.

Bounded: at most PER_SPACE tasks of one Space (split by split, in index order) and MAX_URLS in all, the
sitemaps.org limit for one file. Spaces come off the snapshot's id index ("space:" ids) in batches, their checks read
in one Redis round trip per batch; with Redis unreachable the file lists nothing rather than failing.
"""

from __future__ import annotations

from typing import Iterator

from redis.exceptions import RedisError

from rlx.adapters.registry import space_adapter
from rlx.live.space_checks import cached_checks

PER_SPACE = 200
MAX_URLS = 50_000
BATCH = 500
PATH = "/sitemap-space-tasks.xml"


def space_task_pages(db, redis_db, hidden) -> Iterator[tuple[str, str | None]]:
    """(page path, modified) of every listed Space task page, Space by Space in id order."""
    given = 0
    cursor = db.execute("SELECT id, modified FROM envs WHERE id >= 'space:' AND id < 'space;' ORDER BY id")
    adapter = space_adapter()
    for batch in iter(lambda: cursor.fetchmany(BATCH), []):
        spaces = [(env_id[len("space:"):], modified) for env_id, modified in batch if env_id not in hidden]
        try:
            reports = cached_checks(redis_db, [space_id for space_id, _ in spaces])
        except (RedisError, OSError):
            return
        for (space_id, modified), report in zip(spaces, reports):
            for ref, _ in adapter.live_task_refs(report, min(PER_SPACE, MAX_URLS - given)):
                given += 1
                yield f"/s/{space_id}/t/{ref}", modified
            if given >= MAX_URLS:
                return

