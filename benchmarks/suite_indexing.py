"""(h) A real suite's size, 3,500 Harbor tasks in 30,000 files, indexed from a local folder and through the Hub.

The repository is `synth_catalog.suite_fixture()`. From a folder: written to disk (its .hub.json states no sha, so
the FolderSource's fingerprint is its revision), then `repo_info` and HarborAdapter().build_index to the complete
index, as the indexing job runs them; the folder walks the fingerprint makes are counted. Through the Hub stand-in
at 50 ms a request: indexing.index_once, the moment the task list is published (and, in a full run, completion).
"""

from __future__ import annotations

import tempfile
import threading
import time
from pathlib import Path

from benchmarks import indexing
from benchmarks.markdown import TODO_ROUTE, met, num, table
from rlx.adapters import Env
from rlx.adapters.harbor.adapter import HarborAdapter
from rlx.sources import folder as folder_source
from rlx.store import Store
from scripts import synth_catalog

TARGET_FOLDER_S = 60.0  # the complete index, from a local folder
TARGET_HUB_LIST_S = 10.0  # the published task list, through the Hub at 50 ms a request


def measure(quick: bool) -> dict:
    fixture = synth_catalog.suite_fixture()
    local = from_folder(fixture)
    hub = indexing.index_once(fixture, stop_after_list=quick)
    return {"tasks": synth_catalog.SUITE_TASKS, "files": len(fixture[2]), "folder": local, "hub": hub,
            "met": {"folder": local["complete_s"] is not None and local["complete_s"] <= TARGET_FOLDER_S,
                    "hub_list": hub["list_s"] is not None and hub["list_s"] <= TARGET_HUB_LIST_S}}


def from_folder(fixture: tuple) -> dict:
    with tempfile.TemporaryDirectory(prefix="rlx-bench-suite-") as tmp:
        started = time.perf_counter()
        synth_catalog.write_repo(Path(tmp) / "source", fixture)
        written_s = time.perf_counter() - started
        source = folder_source.FolderSource(Path(tmp) / "source")
        store = Store(Path(tmp) / "store")
        checks = _count_revision_checks(source)
        walks = _count_fingerprints()
        try:
            started = time.perf_counter()
            env = Env(source.repo_info(fixture[0], fixture[1]), source, store)
            seen = indexing.Publication(started, env.id, store)
            watcher = threading.Thread(target=seen.watch, daemon=True)
            watcher.start()
            index = HarborAdapter().build_index(env, None)
            complete_s = time.perf_counter() - started
            watcher.join(5)
            seen.stop.set()
        finally:
            walks.restore()
        started = time.perf_counter()
        folder_source._fingerprint(source.root / "datasets" / fixture[1])
        walk_s = time.perf_counter() - started
    return {"write_s": written_s, "complete_s": complete_s, "list_s": seen.first_list_s, "rows": len(index.rows),
            "walked": index.summary.get("walked"), "fingerprints": walks.count, "revision_checks": checks.count,
            "walk_s": walk_s, "walking_per_read_s": checks.count * walk_s}


class _count_revision_checks:
    """Counts the source's revision checks (every listing, paths-info and file read at a revision): each one
    walked the whole repository before the fingerprint was kept."""

    def __init__(self, source):
        self.count = 0
        real = source._check_revision

        def counting(*args, **kwargs):
            self.count += 1
            return real(*args, **kwargs)

        source._check_revision = counting


class _count_fingerprints:
    """Counts calls of the FolderSource's fingerprint (one walk of the whole repository each) while it lives."""

    def __init__(self):
        self.count = 0
        self._real = folder_source._fingerprint

        def counting(path):
            self.count += 1
            return self._real(path)

        folder_source._fingerprint = counting

    def restore(self) -> None:
        folder_source._fingerprint = self._real


def render(r: dict) -> str:
    x = r.get("suite_indexing")
    if not x:
        return "## h. A 3,500-task suite, from a folder and through the Hub\n\n" + TODO_ROUTE + "\n"
    local, hub = x["folder"], x["hub"]
    kinds = hub["by_kind"]
    if hub["stopped"] == "after the list":
        hub_complete = "not measured (quick run: stopped once the list was out)"
    elif hub["stopped"] == "at the budget":
        hub_complete = (f"not complete at {indexing.COMPLETE_BUDGET_S:.0f} s ({hub['fetched']:,} of "
                        f"{hub['to_fetch']:,} files); at that rate ≈ {num(hub['projected_complete_s'], 0)} s")
    else:
        hub_complete = f"{num(hub['complete_s'], 1)} s"
    rows = [
        ["local folder (FolderSource)", f"{num(local['list_s'], 2)} s", f"**{num(local['complete_s'], 1)} s**",
         f"≤ {TARGET_FOLDER_S:.0f} s complete", met(x["met"]["folder"]),
         f"{local['fingerprints']} fingerprint walk(s) of the folder; {local['rows']:,} tasks; "
         f"{'walked' if local['walked'] else 'listed whole'}; writing the folder took {local['write_s']:.1f} s"],
        [f"Hub stand-in, {indexing.LATENCY_S * 1000:.0f} ms a request", f"**{num(hub['list_s'], 2)} s**",
         hub_complete, f"≤ {TARGET_HUB_LIST_S:.0f} s to the list", met(x["met"]["hub_list"]),
         f"{hub['requests']:,} requests: {kinds['listing']:,} listing pages, {kinds['paths-info']:,} paths-info, "
         f"{kinds['files']:,} files, {kinds['other']:,} other; {'walked' if hub['walked'] else 'listed whole'}"],
    ]
    return ("## h. A 3,500-task suite, from a folder and through the Hub\n\n"
            f"`synth_catalog.suite_fixture()`: {x['tasks']:,} Harbor tasks in {x['files']:,} files (the size of a "
            "real 3,566-task suite), indexed by HarborAdapter().build_index, timed from repo_info. The folder's "
            "revision is its fingerprint, taken once when repo_info gives it out; file reads never walk the folder. "
            f"The build checked the revision {local['revision_checks']:,} times (listings, paths-info, reads); one "
            f"walk of this folder takes {local['walk_s']:.2f} s, so walking at every check, as the source did before, "
            f"would have added ≈ {local['walking_per_read_s'] / 3600:.1f} h.\n\n"
            + table(["source", "task list published", "index complete", "target", "", "how"], rows, "lrrlll"))


def targets(r: dict) -> list[list[str]]:
    x = r.get("suite_indexing")
    if not x:
        return []
    return [["3,500-task, 30,000-file local folder: complete index", f"≤ {TARGET_FOLDER_S:.0f} s",
             f"{num(x['folder']['complete_s'], 1)} s", met(x["met"]["folder"])],
            ["the same through the Hub stand-in (50 ms a request): task list published",
             f"≤ {TARGET_HUB_LIST_S:.0f} s", f"{num(x['hub']['list_s'], 1)} s", met(x["met"]["hub_list"])]]


if __name__ == "__main__":
    import json
    import sys

    print(json.dumps(measure(quick="--quick" in sys.argv), indent=1, default=str))
