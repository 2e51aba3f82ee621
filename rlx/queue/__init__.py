"""Redis plumbing under the jobs: one connection per app, job progress any host can read, worker liveness (the
queues themselves and every enqueue are rlx/jobs/)."""

from rlx.queue.connection import get_redis, init_app
from rlx.queue.progress import NullProgress, Progress, read_progress

__all__ = ["NullProgress", "Progress", "get_redis", "init_app", "read_progress"]
