"""(d) Indexing through the Hub stand-in with 50 ms added to every answer: a 1,000-task dataset and the 5,000-task
repository (125,000 files), by the Harbor adapter's own build_index over a HubSource, as the indexing job runs it.

Two moments are timed from the start of build_index: when a reader of the store first sees the task list (a
watcher polls the index file, as a page would), and when the index is complete. The stand-in's request log says
how many requests the build made, of which kind.
"""

from __future__ import annotations

import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from benchmarks.stats import median
from rlx.adapters import Env
from rlx.adapters.harbor.adapter import HarborAdapter
from rlx.adapters.indexes import load_index, load_partial_index
from rlx.catalog import fetch_listing
from rlx.sources.hub import HubSource
from rlx.store import Store
from scripts import synth_catalog
from tests.stand_ins.hub import HubStandIn

LATENCY_S = 0.05
TARGET_LIST_S = 10.0  # the 5,000-task repository's task list, published at 50 ms a request
COMPLETE_BUDGET_S = 120.0  # a build still fetching after this long is stopped; its end is projected


class StopAfterList(Exception):
    """Raised by the progress sink to end a run once the task list is out."""


class StopAtBudget(Exception):
    """Raised by the progress sink when the build has fetched for longer than its budget."""


@dataclass
class Publication:
    """What a reader of the store saw, and when (seconds since build_index started)."""

    started: float
    env_id: str
    store: Store
    first_list_s: float | None = None
    first_list_rows: int = 0
    walked: bool | None = None  # as the first published list says
    complete_s: float | None = None
    publications: int = 0
    stop: threading.Event = field(default_factory=threading.Event)

    def watch(self) -> None:
        """Poll the partial index (the list a page shows while indexing) and the complete one, as a page would."""
        seen = {}
        files = ((self.store.partial_index_path(self.env_id), load_partial_index),
                 (self.store.index_path(self.env_id), load_index))
        while not self.stop.is_set():
            for path, load in files:
                try:
                    stat = path.stat()
                except FileNotFoundError:
                    continue
                if (stat.st_mtime_ns, stat.st_size) == seen.get(path):
                    continue
                now = time.perf_counter() - self.started
                seen[path] = (stat.st_mtime_ns, stat.st_size)
                index = load(self.store, self.env_id)
                if index is None:
                    continue
                self.publications += 1
                if self.first_list_s is None and index.rows:
                    self.first_list_s, self.first_list_rows = now, len(index.rows)
                    self.walked = index.summary.get("walked")
                if index.complete:
                    self.complete_s = now
                    return
            time.sleep(0.005)


class _Sink:
    """A progress sink that ends the build once fetching starts (the list is out by then), or once the build has
    run past its budget, remembering how far the fetching got."""

    def __init__(self, stop_at_fetching: bool, started: float, budget_s: float):
        self.stop_at_fetching, self.started, self.budget_s = stop_at_fetching, started, budget_s
        self.to_fetch = self.fetched = 0
        self.stopped_at: float | None = None  # seconds since the start, when the budget ran out

    def start(self, step, total=None, message=""):
        if step == "fetching":
            if self.stop_at_fetching:
                raise StopAfterList()
            self.to_fetch = total or 0

    def update(self, step, done=None, message=None):
        if step == "fetching" and done is not None:
            self.fetched = done
            elapsed = time.perf_counter() - self.started
            if elapsed > self.budget_s:
                self.stopped_at = elapsed
                raise StopAtBudget()

    def finish(self, *args, **kwargs):
        pass


def index_once(fixture: tuple, stop_after_list: bool = False, budget_s: float = COMPLETE_BUDGET_S) -> dict:
    """One build of `fixture` (add_repo arguments) into a fresh store, behind a fresh stand-in."""
    repo_type, repo_id, files, meta = fixture
    with tempfile.TemporaryDirectory(prefix="rlx-bench-index-") as folder, HubStandIn() as hub:
        hub.add_repo(repo_type, repo_id, files, meta)
        source = HubSource(hub.url)
        store = Store(Path(folder))
        env = Env(source.repo_info(repo_type, repo_id), source, store)
        hub.latency = LATENCY_S
        hub.reset_log()
        started = time.perf_counter()
        seen = Publication(started, repo_id, store)
        watcher = threading.Thread(target=seen.watch, daemon=True)
        watcher.start()
        sink = _Sink(stop_after_list, started, budget_s)
        index, stopped = None, None
        try:
            index = HarborAdapter().build_index(env, sink)
        except StopAfterList:
            stopped = "after the list"
        except StopAtBudget:
            stopped = "at the budget"
        rows = len(index.rows) if index is not None else None
        finished = time.perf_counter() - started
        deadline = time.monotonic() + 5
        while watcher.is_alive() and time.monotonic() < deadline and (rows is not None or seen.first_list_s is None):
            time.sleep(0.01)
        seen.stop.set()
        watcher.join(5)
        requests = list(hub.requests)
    kinds = {"listing": sum("/tree/" in p for _, p in requests),
             "paths-info": sum("paths-info" in p for _, p in requests),
             "files": sum("/resolve/" in p for _, p in requests)}
    kinds["other"] = len(requests) - sum(kinds.values())
    projected = None
    if stopped == "at the budget" and sink.fetched:  # the fetching rate so far, carried to the last file
        list_s = seen.first_list_s or 0.0
        projected = list_s + (sink.stopped_at - list_s) * sink.to_fetch / sink.fetched
    return {"list_s": seen.first_list_s, "list_rows": seen.first_list_rows, "complete_s": seen.complete_s,
            "build_s": finished, "rows": rows, "requests": len(requests), "by_kind": kinds,
            "publications": seen.publications, "walked": seen.walked,
            "stopped": stopped, "to_fetch": sink.to_fetch, "fetched": sink.fetched, "projected_complete_s": projected}


def listing_once(catalog) -> dict:
    """The whole catalog's listing through the stand-in (the indexer's first step), at the same latency."""
    with HubStandIn() as hub:
        synth_catalog.add_to_hub(hub, catalog)
        hub.latency = LATENCY_S
        hub.reset_log()
        started = time.perf_counter()
        records = fetch_listing(HubSource(hub.url))
        seconds = time.perf_counter() - started
        return {"seconds": seconds, "records": len(records), "in_hub": len(hub.repos), "requests": len(hub.requests)}


def measure(runs: int, quick: bool) -> dict:
    """The 1,000-task dataset `runs` times to completion; the 5,000-task repository once to completion (or its
    budget) and the other runs up to its published list (the figure with a target). Medians."""
    catalog = synth_catalog.plan_catalog()
    thousand, big_fixture = synth_catalog.thousand_task_fixture(catalog), synth_catalog.big_repo_fixture()
    out = {"listing": listing_once(catalog),
           "1,000-task dataset": _summary([index_once(thousand) for _ in range(runs)], files=len(thousand[2]))}
    big_runs = [index_once(big_fixture, stop_after_list=quick)]
    big_runs += [index_once(big_fixture, stop_after_list=True) for _ in range(runs - 1)]
    out["5,000-task repository"] = _summary(big_runs, files=len(big_fixture[2]))
    big = out["5,000-task repository"]
    out["met"] = {"list": big["list_s"] is not None and big["list_s"] <= TARGET_LIST_S}
    return out


def _summary(results: list[dict], files: int) -> dict:
    def med(key):
        values = [r[key] for r in results if r[key] is not None]
        return median(values) if values else None

    full = results[0]  # the run that went on past the list (to completion, or to its budget)
    return {"runs": len(results), "files_in_repo": files, "list_s": med("list_s"), "complete_s": med("complete_s"),
            "list_s_all": [r["list_s"] for r in results], "complete_s_all": [r["complete_s"] for r in results],
            "list_rows": full["list_rows"], "full_run": full, "requests": full["requests"],
            "completed_runs": sum(r["stopped"] is None for r in results)}


def profile_target() -> Callable[[], dict]:
    """The 5,000-task repository's build up to its published list, for the profiler."""
    fixture = synth_catalog.big_repo_fixture()
    return lambda: index_once(fixture, stop_after_list=True)
