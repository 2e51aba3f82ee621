"""Redis and the RQ queues: one connection per app, three queues, progress that any host can read."""

from rlx.queue.connection import QUEUES, get_queue, get_redis, init_app
from rlx.queue.progress import Progress, read_progress

__all__ = ["QUEUES", "Progress", "get_queue", "get_redis", "init_app", "read_progress"]
