"""Job functions the tests enqueue; a worker process imports them by name."""

from flask import current_app

from rlx.queue import Progress


def count_to(n: int) -> dict:
    progress = Progress.for_current_job(["counting"])
    progress.start("counting", total=n)
    for i in range(1, n + 1):
        progress.update("counting", i)
    progress.finish("counting", "counted")
    return {"counted": n, "source": current_app.config["RLX"].source}
