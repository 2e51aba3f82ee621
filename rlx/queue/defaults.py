"""Our Redis key prefix and how fast a dead worker is noticed: chosen here, not inherited from RQ (each queue's
own settings are rlx/jobs/queues.py)."""

# Our own Redis keys read rlx:<area>:<id>.
KEY_PREFIX = "rlx:"

# How a dead worker is noticed (rlx/queue/liveness.py has the rule). A worker writes its heartbeat every
# WORKER_HEARTBEAT_S (idle: between short dequeue waits; busy: while watching its work horse). A busy or overloaded
# machine may delay it: a worker is dead once its heartbeat has lapsed by WORKER_LAPSE_S more (RQ's own margin is a
# minute), or sooner once LATE_BEATS beats are missed and its process is gone from this machine. Its started job is
# then put back on its queue (at most rlx/jobs/queues.py JOB_ATTEMPTS runs in all) or failed. Both seconds are settings
# (RLX_WORKER_HEARTBEAT_S, RLX_WORKER_LAPSE_S); these are their defaults.
WORKER_HEARTBEAT_S = 2
WORKER_LAPSE_S = 60
LATE_BEATS = 5
MAINTENANCE_INTERVAL_S = 3
MAINTENANCE_LOCK_S = 10  # one process cleans a queue's registries at a time; a dead one's turn lapses
