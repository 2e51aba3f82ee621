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


def hold_first_step() -> dict:
    """An index job that has started and not yet reported a count: it waits to be released by the test."""
    from rq import get_current_job

    Progress.for_current_job(["listing", "fetching", "packing"])
    get_current_job().connection.blpop("tests:release", timeout=60)
    return {}


def sleep_for(seconds: float) -> str:
    """A long job: reports progress, then sleeps (long enough for a test to kill its worker)."""
    import time

    progress = Progress.for_current_job(["sleeping"])
    progress.start("sleeping", message="sleeping")
    time.sleep(seconds)
    progress.finish("sleeping", "slept")
    return "slept"


def fail_with(message: str) -> None:
    """A job that raises, counting its runs on its meta."""
    from rq import get_current_job

    job = get_current_job()
    job.meta["runs"] = job.get_meta().get("runs", 0) + 1
    job.save_meta()
    raise ValueError(message)
