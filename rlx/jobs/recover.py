"""After Redis was reset (an embedded one restarts with the app, empty): the store still says which batches run,
but Redis forgot them and their queued jobs. Once per Redis lifetime, a worker's upkeep ends each such batch's
lost runs as infrastructure errors (rlx/jobs/settle.py) and hands the batch back to the sweep, which starts its
next runs. Nothing the store holds is lost to a restart."""

from __future__ import annotations

from rlx.runs import record
from rlx.runs.batch import RUNNING_KEY
from rlx.runs.batch_record import RUNNING, load
from rlx.store import Store

RECOVERED_KEY = f"{RUNNING_KEY}:recovered"  # set once; a reset Redis no longer has it


def recover_batches(store: Store, redis) -> int:
    """How many running batches were handed back (0 when this Redis already had its look)."""
    from rlx.jobs.settle import settle

    if not redis.set(RECOVERED_KEY, "1", nx=True):
        return 0
    folder = store.runs_dir / "batches"
    found = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        batch = load(store, path.stem)
        if batch is None or batch.status != RUNNING:
            continue
        for run_id in batch.run_ids:
            run = record.load(store, run_id)
            if run is not None and run.active:
                settle(run)  # its job gone with Redis: it ends failed, saying so
        found.append(batch.id)
    if found:
        redis.sadd(RUNNING_KEY, *found)
    return len(found)
