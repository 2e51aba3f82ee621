"""Rollouts: (j) event in the worker → fragment in the browser, and (k) 8 oracle rollouts of bundled tasks at once.

The bundled catalog (examples/) is the source; its Harbor datasets are indexed first. `rlx serve` (gunicorn, 2
gevent workers, its own embedded Redis) serves the pages, and `rlx worker --queues rollouts` processes run the
jobs, each driving Harbor's Trial in a bubblewrap sandbox: nothing is stubbed.

(j) One worker runs oracle on bundled tasks one after another. For each run an SSE client (http.client, reading
line by line as a browser's EventSource does) follows /r/<id>/events from before the worker picks the job up.
Every fragment that arrives carries its event's stream id; its latency is its arrival time minus the `at` stamp
the worker wrote when it published the event (both wall clocks of this one machine). Events published before
the client's stream opened are left out (they queue for it, which is not the path measured).

(k) Eight workers, eight oracle runs of eight different bundled tasks launched together: the wall time from the
first launch to the last record finished, and each run's status and reward.

`python -m benchmarks.rollouts [--live-runs N]` runs it alone and prints the figures as JSON.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import signal
import subprocess
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from benchmarks import servers
from benchmarks.markdown import met, num, table
from benchmarks.stats import percentile
from benchmarks.workspace import Workspace, create

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
DATASETS = ("rlx-examples/terminal-basics", "rlx-examples/science-puzzles", "rlx-examples/python-bugfix")
TARGET_LIVE_P50_MS = 250.0
AT_ONCE = 8
RUN_TIMEOUT_S = 600


def measure(live_runs: int = 4) -> dict:
    if shutil.which("bwrap") is None:
        return {"error": "bubblewrap (`bwrap`) is not installed: no rollout can run here."}
    ws = create()
    try:
        ws.source.symlink_to(EXAMPLES, target_is_directory=True)
        refs = _index_bundled(ws)
        with servers.app_server(ws, log_name="rollouts-app") as url:
            app = _launcher(ws)
            with _workers(ws, 1, "live") as _:
                live = _live_latency(app, url, refs[:live_runs])
            with _workers(ws, AT_ONCE, "eight") as _:
                eight = _eight_at_once(app, refs[:AT_ONCE])
        return {"live": live, "eight": eight, "targets": {"live_p50_ms": TARGET_LIVE_P50_MS},
                "met": {"live": live.get("p50_ms") is not None and live["p50_ms"] <= TARGET_LIVE_P50_MS,
                        "eight": eight["finished_with_reward"] == AT_ONCE}}
    finally:
        shutil.rmtree(ws.root, ignore_errors=True)


def _index_bundled(ws: Workspace) -> list[tuple[str, str]]:
    """The bundled Harbor datasets indexed into the workspace's store; their tasks the local sandbox can run."""
    from rlx import create_app
    from rlx.adapters import Env, pick
    from rlx.config import Config

    app = create_app(Config.from_env({**ws.env(), "REDIS_URL": "redis://127.0.0.1:1/0"}))  # never dialled
    refs = []
    with app.app_context():
        source, store = app.extensions["rlx.source"], app.extensions["rlx.store"]
        for env_id in DATASETS:
            env = Env(source.repo_info("dataset", env_id), source, store)
            index = pick(env).build_index(env)
            refs += [(env_id, row.ref) for row in index.rows
                     if not row.error and row.facets.get("runs_here") in ("yes", True)]
    if len(refs) < AT_ONCE:
        raise RuntimeError(f"only {len(refs)} bundled tasks run in the local sandbox; {AT_ONCE} are needed")
    return refs


def _launcher(ws: Workspace):
    """This process's own app on the server's Redis and store: it starts runs as the web's POST does."""
    from rlx import create_app
    from rlx.config import Config

    return create_app(Config.from_env({**ws.env(), "REDIS_URL": f"unix://{_redis_socket(ws)}"}))


def _redis_socket(ws: Workspace) -> Path:
    from rlx.queue.embedded import EmbeddedRedis
    from rlx.store import Store

    return EmbeddedRedis(Store(ws.storage).redis_dir).socket


@contextmanager
def _workers(ws: Workspace, count: int, name: str, queues: str = "rollouts"):
    """`rlx worker --queues <queues>` × count, each in its own session so stopping them reaches their sandboxes."""
    from redis import Redis
    from rq import Worker

    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"} | ws.env()
    processes = []
    try:
        for i in range(count):
            with open(ws.root / f"worker-{name}-{i}.log", "ab") as log:
                processes.append(subprocess.Popen([str(servers.BIN / "rlx"), "worker", "--queues", queues],
                                                  env=env, stdout=log, stderr=subprocess.STDOUT,
                                                  stdin=subprocess.DEVNULL, start_new_session=True))
        redis = Redis(unix_socket_path=str(_redis_socket(ws)))
        deadline = time.monotonic() + 60
        while len(Worker.all(connection=redis)) < count:
            if any(p.poll() is not None for p in processes) or time.monotonic() > deadline:
                raise RuntimeError(f"{count} rollout workers did not all start (logs in worker-{name}-*.log)")
            time.sleep(0.1)
        yield processes
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def _start(app, env_id: str, ref: str) -> str:
    from rlx.runs import record
    from rlx.runs.launch import start_run
    from rlx.runs.record import RunRecord

    with app.app_context():
        run = start_run(RunRecord(id=record.new_run_id(), env_id=env_id, ref=ref, agent="oracle",
                                  visibility="public"))
    return run.id


def _wait_ended(app, run_id: str, timeout: float = RUN_TIMEOUT_S):
    from rlx.runs import record
    from rlx.jobs.settle import settle

    deadline = time.monotonic() + timeout
    with app.app_context():
        store = app.extensions["rlx.store"]
        while True:
            run = settle(record.load(store, run_id))
            if not run.active:
                return run
            if time.monotonic() > deadline:
                raise RuntimeError(f"run {run_id} still {run.status} after {timeout:.0f} s")
            time.sleep(0.1)


# ---------------------------------------------------------------------------------------------- (j) live


def _follow(url: str, run_id: str, opened: threading.Event, arrivals: dict, errors: list) -> None:
    """Read /r/<id>/events to its end; note each fragment's arrival (wall clock) by its event id."""
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=RUN_TIMEOUT_S)
    try:
        conn.request("GET", f"/r/{run_id}/events", headers={"Accept": "text/event-stream"})
        response = conn.getresponse()
        if response.status != 200:
            errors.append(f"/r/{run_id}/events answered {response.status}")
            return
        event_id, name = None, None
        while True:
            line = response.readline()
            if not line:
                return
            text = line.decode(errors="replace").rstrip("\r\n")
            if text.startswith("retry:"):
                arrivals["opened_at"] = time.time()
                opened.set()
            elif text.startswith("id: "):
                event_id = text[4:]
            elif text.startswith("event: "):
                name = text[7:]
            elif text == "":
                if event_id:
                    arrivals.setdefault(event_id, time.time())
                if name == "end":
                    return
                event_id, name = None, None
    except Exception as exc:  # the figure says what went wrong rather than ending the whole benchmark
        errors.append(f"{type(exc).__name__}: {exc}")
    finally:
        opened.set()
        conn.close()


def _live_latency(app, url: str, refs: list[tuple[str, str]]) -> dict:
    from rlx.queue import get_redis
    from rlx.runs import events

    latencies, per_run, errors = [], [], []
    for env_id, ref in refs:
        run_id = _start(app, env_id, ref)
        arrivals, opened = {}, threading.Event()
        reader = threading.Thread(target=_follow, args=(url, run_id, opened, arrivals, errors), daemon=True)
        reader.start()
        opened.wait(30)
        run = _wait_ended(app, run_id)
        reader.join(30)
        with app.app_context():
            published = {event_id: e["at"] for event_id, e in events.read(get_redis(), run_id,
                                                                         count=events.MAX_EVENTS)}
        since = arrivals.get("opened_at", float("inf"))
        mine = [(arrivals[i] - at) * 1000 for i, at in published.items() if i in arrivals and at >= since]
        latencies += mine
        per_run.append({"task": f"{env_id}/{ref}", "status": run.status, "reward": run.reward,
                        "events": len(published), "timed": len(mine)})
    result = {"runs": per_run, "samples": len(latencies), "errors": errors[:5]}
    if latencies:
        result |= {"p50_ms": round(percentile(latencies, 50), 1), "p95_ms": round(percentile(latencies, 95), 1),
                   "max_ms": round(max(latencies), 1)}
    return result


# ---------------------------------------------------------------------------------------------- (k) eight


def _eight_at_once(app, refs: list[tuple[str, str]]) -> dict:
    started = time.perf_counter()
    ids = [(_start(app, env_id, ref), f"{env_id}/{ref}") for env_id, ref in refs]
    runs = []
    for run_id, task in ids:
        run = _wait_ended(app, run_id)
        runs.append({"task": task, "status": run.status, "reward": run.reward,
                     "seconds": (run.timings or {}).get("total"), "outcome": (run.outcome or "")[:160]})
    wall = time.perf_counter() - started
    return {"runs": runs, "wall_s": round(wall, 1),
            "finished_with_reward": sum(1 for r in runs if r["status"] == "finished" and r["reward"] is not None)}


# ---------------------------------------------------------------------------------------------- report


def render(r: dict) -> str | None:
    p = r.get("rollouts")
    if not p:
        return None
    if "error" in p:
        return f"## j, k. Rollouts\n\nNot measured: {p['error']}\n"
    live, eight = p["live"], p["eight"]
    return ("## j, k. Rollouts\n\n"
            "The bundled catalog, `rlx serve` (2 gevent workers) and `rlx worker --queues rollouts` processes, each "
            "rollout Harbor's Trial in a bubblewrap sandbox.\n\n"
            f"**(j) Event in the worker → fragment in the browser**: {len(live['runs'])} oracle runs one after "
            "another on one worker, each followed over SSE (/r/&lt;id&gt;/events) from before it started; each "
            "fragment's arrival minus the time the worker published its event.\n\n"
            + table(["", "measured"], [
                ["fragments timed", str(live["samples"])],
                ["p50 / p95 / max", f"**{num(live.get('p50_ms'), 1)}** / {num(live.get('p95_ms'), 1)} / "
                                    f"{num(live.get('max_ms'), 1)} ms"],
            ] + [[f"run: {x['task']}", f"{x['status']}, reward {num(x['reward'], 2)}, {x['timed']} of "
                                       f"{x['events']} events timed"] for x in live["runs"]], "ll")
            + f"\n**(k) {AT_ONCE} oracle rollouts at once** ({AT_ONCE} workers, {AT_ONCE} different bundled tasks): "
              f"all ended in **{eight['wall_s']:.1f} s** wall time; {eight['finished_with_reward']} of "
              f"{len(eight['runs'])} finished with a reward.\n\n"
            + table(["task", "status", "reward", "trial s"],
                     [[x["task"], x["status"], num(x["reward"], 2), num(x["seconds"], 1)] for x in eight["runs"]]))


def targets(r: dict) -> list[list[str]]:
    p = r.get("rollouts")
    if not p or "error" in p:
        return []
    live, eight = p["live"], p["eight"]
    return [["event in the worker → fragment in the browser (p50, SSE)", f"≤ {TARGET_LIVE_P50_MS:g} ms",
             f"{live.get('p50_ms', float('nan')):.1f} ms ({live['samples']} fragments)", met(p["met"]["live"])],
            [f"{AT_ONCE} oracle rollouts of bundled tasks at once", "each finishes with its reward",
             f"{eight['finished_with_reward']} of {len(eight['runs'])} in {eight['wall_s']:.1f} s",
             met(p["met"]["eight"])]]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--live-runs", type=int, default=4)
    print(json.dumps(measure(parser.parse_args(argv).live_runs), indent=1))


if __name__ == "__main__":
    main()
