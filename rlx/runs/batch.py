"""Batch evaluations: one agent over many tasks of a dataset, at most `cap` of its runs active at once.

A batch is a record in the store (runs/batches/<id>.json, written whole, atomically) listing the tasks it covers
and the runs it has started so far. Nothing waits in a thread: `advance` starts runs until `cap` are active, and
it is called when the batch is created and again whenever one of its runs ends (by the rollout job's `finally`,
or by RQ's failure callback for a job that died, rlx/jobs/settle.py), under a Redis lock so two runs ending together
cannot start too many. Batch runs count against the server's overall cap (rlx/runs/limits.py); when that is full
(or rollouts are switched off), `advance` leaves the rest for the workers' sweep (`advance_running`, every
SWEEP_SEC from a worker's upkeep) over the running batches, a set in Redis. Reading a batch never moves it: a page
shows what the workers did. A visitor has at most a few
batches running at once (a sorted set in Redis, like the run slots), and may stop one: nothing more starts, and
its queued and running runs are stopped.

A model agent's batch's model key (the visitor's endpoint key, or their token for Inference Providers) lives in Redis
under the batch's id with an expiry, never in the batch record; `advance` copies it to each run as it queues it
(the run's job takes its copy once), and it is deleted when the batch finishes or is stopped. A batch over
model-graded tasks carries the judge its visitor picked: each of those runs (`judged`) is graded by it, and the
visitor's token for the judge, when the judge is called with theirs (rlx/runs/judges.py), is kept and lent the same way.
"""

from __future__ import annotations

import logging
import time

from rlx.jobs.queues import QUEUES, ROLLOUTS
from rlx.queue.defaults import KEY_PREFIX
from rlx.runs import health, judges, models, read_token, record, rollout_rules
from rlx.runs.limits import LimitReached
from rlx.runs.batch_record import FINISHED, RUNNING, STOPPED, BatchRecord, load, runs_of, save
from rlx.runs.record import RunRecord
from rlx.store import Store

log = logging.getLogger("rlx.runs")
MAX_TASKS = 500  # one batch covers at most this many tasks
MAX_CAP = 4  # runs of one batch active at once, at most
LOCK_SEC = 60
MAX_ACTIVE_PER_VISITOR = 2  # batches one visitor may have running at once (RLX_MAX_BATCHES_PER_VISITOR)
BATCH_SLOT_SEC = 48 * 60 * 60  # a slot a lost batch never gave back frees itself after this
RUNNING_KEY = f"{KEY_PREFIX}batches:running"  # the batches the workers' sweep advances
SWEEP_SEC = 10


def create(store: Store, redis, batch: BatchRecord, max_active: int = MAX_ACTIVE_PER_VISITOR,
           model_secret: dict | None = None, judge_secret: dict | None = None) -> BatchRecord:
    """Write the batch and start its first runs; LimitReached (nothing written) when its visitor has
    `max_active` batches running already. `model_secret` (endpoint and key) and `judge_secret` (the visitor's token
    for the judge) are kept in Redis for its runs."""
    if batch.cap_holder or batch.visitor:
        _take_visitor_slot(store, redis, batch, max_active)
    if model_secret is not None:
        models.store_batch_secret(redis, batch.id, model_secret, BATCH_SLOT_SEC)
    if judge_secret is not None:
        judges.store_batch_judge_secret(redis, batch.id, judge_secret, BATCH_SLOT_SEC)
    save(store, batch)
    return advance(store, redis, batch.id)


def _slots_key(visitor: str) -> str:
    return f"{KEY_PREFIX}batches:active:{visitor}"


def _take_visitor_slot(store: Store, redis, batch: BatchRecord, max_active: int) -> None:
    key = _slots_key(batch.cap_holder or batch.visitor)
    with redis.lock(f"{key}:lock", timeout=LOCK_SEC, blocking_timeout=LOCK_SEC):
        now = time.time()
        redis.zremrangebyscore(key, "-inf", now)
        for member in redis.zrange(key, 0, -1):  # a few at most: drop those that ended without saying so
            other = load(store, member.decode() if isinstance(member, bytes) else member)
            if other is None or other.status != RUNNING:
                redis.zrem(key, member)
        if redis.zcard(key) >= max_active:
            raise LimitReached(f"You already have {max_active} batches running, the limit per visitor; wait for "
                               "one to finish or stop it.", 60)
        redis.zadd(key, {batch.id: now + BATCH_SLOT_SEC})
        redis.expire(key, BATCH_SLOT_SEC)


def _end(store: Store, redis, batch: BatchRecord, status: str) -> None:
    batch.status, batch.finished_at = status, record.now_iso()
    if batch.purpose == "health":
        try:
            health.keep_verdicts(store, batch)
        except Exception:  # the page computes them from the runs anyway; the kept copy waits for the next end
            log.exception("batch %s: its health verdicts could not be kept", batch.id)
    save(store, batch)
    redis.srem(RUNNING_KEY, batch.id)
    models.drop_batch_secret(redis, batch.id)
    judges.drop_batch_judge_secret(redis, batch.id)
    read_token.forget_batch(redis, batch.id)
    if batch.cap_holder or batch.visitor:
        redis.zrem(_slots_key(batch.cap_holder or batch.visitor), batch.id)


def stop(store: Store, redis, batch_id: str) -> BatchRecord | None:
    """Stop a running batch: no more runs start, its queued runs are cancelled and its running ones stopped."""
    from rlx.runs.launch import request_stop

    with redis.lock(f"{KEY_PREFIX}batch:{batch_id}:lock", timeout=LOCK_SEC, blocking_timeout=LOCK_SEC):
        batch = load(store, batch_id)
        if batch is None or batch.status != RUNNING:
            return batch
        _end(store, redis, batch, STOPPED)
    for run in runs_of(store, batch):  # outside the lock: a stopped run's end calls `advance`, which takes it
        if run is not None and run.active:
            request_stop(run)
    return batch


def _active_runs(store: Store, batch: BatchRecord) -> int:
    """How many of the batch's runs are queued or running, from the runs index (one indexed count, where reading
    every record on each run's end would cost a health check of 3,000 runs millions of file reads)."""
    from contextlib import closing

    from rlx.runs.runs_db import connect

    with closing(connect(store)) as db:
        indexed = db.execute("SELECT COUNT(*), SUM(status IN ('queued', 'running')) FROM runs WHERE batch=?",
                             (batch.id,)).fetchone()
    return (indexed[1] or 0) + max(0, len(batch.run_ids) - indexed[0])  # a run not indexed yet counts as active


def after_run(store: Store, redis, run: RunRecord) -> None:
    """A batch's run has ended: let its batch start the next ones. A failure here must not undo the run's end."""
    if not run.batch:
        return
    try:
        advance(store, redis, run.batch)
    except Exception:
        log.warning("batch %s could not start its next runs", run.batch, exc_info=True)


def advance(store: Store, redis, batch_id: str) -> BatchRecord | None:
    """Start this batch's next runs while fewer than its cap are active; mark it finished when all have ended."""
    from rlx.runs.launch import start_run

    with redis.lock(f"{KEY_PREFIX}batch:{batch_id}:lock", timeout=LOCK_SEC, blocking_timeout=LOCK_SEC):
        batch = load(store, batch_id)
        if batch is None or batch.status != RUNNING:
            return batch
        active = _active_runs(store, batch)
        paused = rollout_rules.switched_off() is not None  # switched back on, the workers' sweep starts the rest
        while not paused and len(batch.run_ids) < len(batch.refs) and active < batch.cap:
            run = RunRecord(id=record.new_run_id(), env_id=batch.env_id, ref=batch.refs[len(batch.run_ids)],
                            agent=batch.agent_at(len(batch.run_ids)), model=batch.model, revision=batch.revision,
                            visitor=batch.visitor,
                            visibility=batch.visibility, batch=batch.id, private_dataset=batch.private_dataset,
                            purpose=batch.purpose, judge=batch.judge_at(len(batch.run_ids)))
            if run.judge:  # the visitor's token for the judge, when it is theirs (else the operator's endpoint's)
                judges.lend_batch_judge_secret(redis, batch.id, run.id)
            if batch.private_dataset:  # an expired token lets the run start and end saying so
                read_token.lend_batch(redis, batch.id, run.id, QUEUES[ROLLOUTS].job_timeout)
            if batch.model:  # an expired key lets the run start and end saying its model settings expired
                models.lend_batch_secret(redis, batch.id, run.id)
            try:
                start_run(run, queue=batch.queue)
            except LimitReached:
                models.drop_secret(redis, run.id)
                judges.drop_judge_secret(redis, run.id)
                read_token.forget(redis, run.id)
                break  # the server is full: the next run ending, or the workers' sweep, tries again
            batch.run_ids.append(run.id)
            active += 1
            save(store, batch)  # at once: a crash after this still knows the run is the batch's
        if len(batch.run_ids) == len(batch.refs) and active == 0:
            _end(store, redis, batch, FINISHED)
        else:
            redis.sadd(RUNNING_KEY, batch.id)
        return batch


def advance_running(store: Store, redis) -> int:
    """The workers' sweep: advance every running batch, at most once per SWEEP_SEC across all workers, so a batch
    held back by the server's cap or by rollouts switched off starts its next runs without anyone looking. Returns
    how many batches it looked at (0 when another worker's sweep is recent)."""
    if not redis.set(f"{RUNNING_KEY}:swept", "1", nx=True, ex=SWEEP_SEC):
        return 0
    members = [m.decode() if isinstance(m, bytes) else m for m in redis.smembers(RUNNING_KEY)]
    for batch_id in members:
        try:
            batch = advance(store, redis, batch_id)
        except Exception:
            log.warning("batch %s could not start its next runs", batch_id, exc_info=True)
            continue
        if batch is None or batch.status != RUNNING:
            redis.srem(RUNNING_KEY, batch_id)
    return len(members)
