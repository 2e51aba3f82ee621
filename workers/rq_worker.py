"""`rlx worker` (and `python -m workers.rq_worker`): one RQ worker on the index, snapshot and rollouts queues.

The app is built once, before RQ forks a work horse per job, so imports and config are paid once and every job
runs inside `app.app_context()` (jobs reach the store, the source and Redis through `current_app`).
"""

from __future__ import annotations

import sys

from flask import Flask
from rq import Worker

from rlx.queue.connection import connect
from rlx.queue.defaults import QUEUES


class AppWorker(Worker):
    """An RQ worker whose jobs run inside a Flask app context."""

    flask_app: Flask | None = None

    def perform_job(self, job, queue, *args, **kwargs):
        if self.flask_app is None:
            return super().perform_job(job, queue, *args, **kwargs)
        with self.flask_app.app_context():
            return super().perform_job(job, queue, *args, **kwargs)


def build_worker(app: Flask, queues=tuple(QUEUES), name: str | None = None) -> AppWorker:
    config = app.config["RLX"]
    worker = AppWorker(list(queues), connection=connect(config.redis_url), name=name)
    worker.flask_app = app
    return worker


def main(burst: bool = False) -> None:
    from rlx import create_app

    app = create_app()
    build_worker(app).work(burst=burst, with_scheduler=not burst, logging_level="WARNING")


if __name__ == "__main__":
    main(burst="--burst" in sys.argv[1:])
