"""The indexer end to end against the Hub stand-in: it lists the catalog, rebuilds only what changed (within its
budgets, featured first), publishes a whole snapshot or nothing, and refuses a listing that shrank."""

import dataclasses
import gzip
import json
import os
import shutil
import subprocess
import sys
from datetime import datetime, timezone

import pytest
from rq import Queue
from rq.job import Job

from rlx.catalog import read_listing_file
from rlx.jobs.snapshot import ensure_snapshot_job
from rlx.snapshot import refresh, pointer_name, row_sources
from rlx.snapshot.refresh import refresh_catalog
from rlx.snapshot.schema import open_immutable
from rlx.sources.errors import Unavailable
from rlx.store import Store
from rlx.store.settings import AdminSettings
from tests.processes import wait_or_fail
from tests.conftest import EXAMPLES
from tests.stand_ins.hub import HubStandIn
from tests.stand_ins.hub_fixtures import (BULK_HARBOR, GATED_HARBOR, OPENENV_SPACE, PRIVATE_HARBOR, PUBLIC_HARBOR,
                                          RL_ONLY, harbor_dataset, populate_default_hub)

BULK = BULK_HARBOR[:8]  # enough to order and budget; every dataset more costs each run a dozen requests
T0 = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc).timestamp()
HOUR, DAY = 3600, 24 * 3600
HARBOR_DATASETS = {PUBLIC_HARBOR, *BULK}  # public, ungated, tagged harbor
INDEXED = {*HARBOR_DATASETS, RL_ONLY}  # what the indexer builds: every public dataset an adapter reads
PUBLIC_ENVS = {*HARBOR_DATASETS, RL_ONLY, f"space:{OPENENV_SPACE}"}
FILE_REQUESTS = ("/tree/", "/resolve/", "/paths-info/")


class Clock:
    def __init__(self):
        self.now = T0

    def __call__(self):
        return self.now


class ListingWithoutRevisions:
    """The stand-in Hub as seen by a source whose listing does not say each repository's revision."""

    def __init__(self, source):
        self.source = source

    def __getattr__(self, name):
        return getattr(self.source, name)

    def list_repos(self, *args, **kwargs):
        return [dataclasses.replace(r, sha=None) for r in self.source.list_repos(*args, **kwargs)]


class MinutePerListing:
    """The stand-in Hub as seen by a run whose every repository listing takes a minute of the injected clock."""

    def __init__(self, source, clock):
        self.source, self.clock = source, clock

    def __getattr__(self, name):
        return getattr(self.source, name)

    def list_tree(self, *args, **kwargs):
        self.clock.now += 60
        return self.source.list_tree(*args, **kwargs)


@pytest.fixture
def hub():
    """The default stand-in Hub with eight of its bulk Harbor datasets."""
    stand_in = populate_default_hub(HubStandIn())
    for repo_id in BULK_HARBOR[len(BULK):]:
        del stand_in.repos[("dataset", repo_id)]
    with stand_in:
        yield stand_in


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "data")


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def run(hub_source, store, tmp_path, clock):
    """One indexer run against the stand-in; the clock moves an hour before each run."""

    def run_once(source=None, **kwargs):
        clock.now += HOUR
        return refresh_catalog(source or hub_source, store, tmp_path / "cache", clock=clock, **kwargs)

    return run_once


def pointer(store):
    return json.loads((store.snapshots_dir / pointer_name()).read_text())


def published_files(store):
    return sorted(p.name for p in store.snapshots_dir.glob("catalog-*.db"))


def snapshot_envs(store):
    """{environment id: task count} in the published snapshot."""
    db = open_immutable(store.snapshots_dir / pointer(store)["db"])
    try:
        return dict(db.execute("SELECT id, task_count FROM envs"))
    finally:
        db.close()


def file_requests(hub):
    return sum(hub.count(contains=route) for route in FILE_REQUESTS)


# -- a run ------------------------------------------------------------------------------------------------------


def test_a_run_publishes_a_snapshot_whose_counts_match_the_listing(hub, run, store):
    summary = run()

    assert summary["refused"] is None and summary["failed"] == []
    assert set(summary["rebuilt"]) == INDEXED
    published = pointer(store)
    assert published["db"] == summary["published"]["db"] and published["counts"] == summary["counts"]
    assert summary["counts"] | {"envs": 11, "datasets": 10, "spaces": 1, "indexed": 10, "tasks": 12} == summary["counts"]
    envs = snapshot_envs(store)
    assert set(envs) == PUBLIC_ENVS
    assert envs[PUBLIC_HARBOR] == 3 and envs[BULK[0]] == 1 and envs[RL_ONLY] == 1  # its one row
    records, fetched_at = read_listing_file(store.listing_path)
    assert {r.id for r in records} == {*HARBOR_DATASETS, RL_ONLY, GATED_HARBOR, OPENENV_SPACE}
    assert fetched_at == "2026-11-30T13:00:00Z"


def test_a_rerun_with_nothing_changed_reads_no_files_and_still_publishes(hub, run, store):
    first = run()
    hub.reset_log()

    again = run()

    assert again["rebuilt"] == [] and again["skipped"]["current"] == len(INDEXED)
    assert file_requests(hub) == 0 and hub.count(contains="/api/datasets/") == 0  # no tree, file or info call
    assert pointer(store)["db"] == again["published"]["db"] != first["published"]["db"]
    assert again["counts"] == first["counts"]


def test_a_dataset_whose_revision_changed_is_rebuilt_alone(hub, run, store):
    run()
    changed = BULK[3]
    hub.add_repo("dataset", changed, harbor_dataset("Bulk 3", tasks=("task-3", "task-3b")),
                 {"trendingScore": 3, "lastModified": "2026-11-30T12:30:00.000Z"})

    summary = run()

    assert summary["rebuilt"] == [changed]
    assert snapshot_envs(store)[changed] == 2


def test_a_rebuilt_dataset_s_snapshot_rows_are_kept_as_it_is_rebuilt_so_the_build_reads_no_index(
        hub, run, store, monkeypatch):
    run()
    changed = BULK[3]
    hub.add_repo("dataset", changed, harbor_dataset("Bulk 3", tasks=("task-3", "task-3b")),
                 {"trendingScore": 3, "lastModified": "2026-11-30T12:30:00.000Z"})
    building, read = [], []  # the indexes read while the snapshot is built
    real_read, real_build = row_sources.read_index, refresh.build_snapshot

    def read_index(store, env_id):
        if building:
            read.append(env_id)
        return real_read(store, env_id)

    monkeypatch.setattr(row_sources, "read_index", read_index)
    monkeypatch.setattr(refresh, "build_snapshot", lambda *a, **k: building.append(1) or real_build(*a, **k))

    summary = run()

    assert summary["rebuilt"] == [changed] and building == [1]
    assert read == []  # every dataset's rows came from the rows cache, the rebuilt one's too
    assert snapshot_envs(store)[changed] == 2


def test_a_listing_without_revisions_asks_only_about_repositories_touched_since_their_build(hub, hub_source, run):
    run()
    touched, changed = BULK[4], BULK[5]
    later = {"lastModified": "2030-01-01T00:00:00.000Z"}
    hub.add_repo("dataset", touched, harbor_dataset("Bulk 4", tasks=("task-4",), tags=("harbor",)),  # same files
                 {"trendingScore": 4, **later})
    hub.add_repo("dataset", changed, harbor_dataset("Bulk 5", tasks=("task-5", "task-5b")),
                 {"trendingScore": 5, **later})
    hub.reset_log()

    summary = run(source=ListingWithoutRevisions(hub_source))

    assert summary["rebuilt"] == [changed]
    asked = [path for method, path in hub.requests if path.startswith("/api/datasets/") and "/tree/" not in path
             and "/paths-info/" not in path]  # the rebuild's own look at its files (environment.yaml) is not a listing's
    assert sorted(path.split("?")[0] for path in asked) == [f"/api/datasets/{touched}", f"/api/datasets/{changed}"]


# -- budgets ----------------------------------------------------------------------------------------------------


def test_featured_datasets_are_rebuilt_first_then_by_trending_within_the_count_budget(hub, run, store):
    settings = AdminSettings.from_json({"featured": [BULK[5], BULK[1]]})

    summary = run(settings=settings, max_builds=4)

    assert summary["rebuilt"] == [BULK[5], BULK[1], PUBLIC_HARBOR, RL_ONLY]  # trending: 90, 65, then 7, 6, ...
    assert len(summary["skipped"]["over_budget"]) == len(INDEXED) - 4
    assert pointer(store)["counts"]["envs"] == 11 and pointer(store)["counts"]["indexed"] == 4
    assert run(max_builds=4)["rebuilt"] == [BULK[7], BULK[6], BULK[4], BULK[3]]


def test_the_time_budget_stops_rebuilding_even_inside_a_build_and_the_snapshot_is_still_published(
        hub, hub_source, run, store, clock):
    slow_hub = MinutePerListing(hub_source, clock)

    # The first build lists from 0 to 60 s. The second (untagged rows: a closer look lists once, then its build
    # lists again) starts its build's listing at 120 s, which ends at 180 s, past the budget: it stops there,
    # without fetching a file, and waits for the next run with the rest.
    summary = run(source=slow_hub, budget_s=150)

    assert summary["rebuilt"] == [PUBLIC_HARBOR]
    assert summary["skipped"]["over_budget"][0] == RL_ONLY
    assert len(summary["skipped"]["over_budget"]) == len(INDEXED) - 1
    assert set(snapshot_envs(store)) == PUBLIC_ENVS
    assert snapshot_envs(store)[RL_ONLY] == 0  # no tasks counted from the half-built index
    assert run(max_builds=1)["rebuilt"] == [RL_ONLY]


def test_the_first_run_publishes_the_catalog_before_it_indexes(hub, run, store):
    published_during_the_builds = []

    class Watching:
        """The stand-in Hub, noting at each build's first listing whether a snapshot is already published."""

        def __getattr__(self, name):
            return getattr(hub_source_, name)

        def list_tree(self, *args, **kwargs):
            published_during_the_builds.append((store.snapshots_dir / pointer_name()).exists())
            return hub_source_.list_tree(*args, **kwargs)

    from rlx.sources.hub import HubSource

    hub_source_ = HubSource(hub.url, connect_timeout=2.0, read_timeout=5.0, backoff=0.01, max_wait=2.0)
    summary = run(source=Watching())

    assert published_during_the_builds and all(published_during_the_builds)
    assert summary["published"]["db"] == pointer(store)["db"]  # then again, with the new indexes
    assert pointer(store)["counts"]["indexed"] == len(summary["rebuilt"]) > 0


# -- failures ---------------------------------------------------------------------------------------------------


def test_a_failed_build_waits_a_day_unless_its_revision_changes(hub, run, store, clock):
    broken = BULK[2]
    hub.fail(400, times=10_000, path_contains=broken)  # the Hub refuses this repository: not an outage
    first = run()
    hub.clear_faults()

    assert [f["id"] for f in first["failed"]] == [broken] and broken not in first["rebuilt"]
    assert "400" in first["failed"][0]["error"] and first["failed"][0]["outage"] is False
    remembered = json.loads(store.indexer_state_path.read_text())["failed"][broken]
    assert remembered["revision"] == hub.repos[("dataset", broken)].sha and remembered["at"] == T0 + HOUR
    assert snapshot_envs(store)[broken] == 0  # listed, without tasks

    hub.reset_log()
    soon = run()  # an hour later: the Hub is fine again, but the same revision is not tried yet
    assert soon["skipped"]["failed_recently"] == [broken] and soon["rebuilt"] == []
    assert file_requests(hub) == 0

    clock.now += DAY
    later = run()
    assert later["rebuilt"] == [broken] and later["skipped"]["failed_recently"] == []
    assert snapshot_envs(store)[broken] == 1
    assert json.loads(store.indexer_state_path.read_text())["failed"] == {}


def test_a_failed_build_is_tried_again_at_once_when_its_revision_changes(hub, run, store):
    broken = BULK[2]
    featured_first = AdminSettings.from_json({"featured": [broken]})
    hub.fail(400, times=10_000, path_contains=broken)
    assert [f["id"] for f in run(settings=featured_first, max_builds=1)["failed"]] == [broken]
    hub.clear_faults()
    hub.add_repo("dataset", broken, harbor_dataset("Bulk 2 fixed", tasks=("task-2",)), {"trendingScore": 2})

    assert run(settings=featured_first, max_builds=1)["rebuilt"] == [broken]


OUTAGES = {
    "520 on files": lambda hub, repo: hub.fail(520, times=10_000, path_contains=f"/datasets/{repo}/resolve/"),
    "429 on files": lambda hub, repo: hub.fail(429, times=10_000, path_contains=f"/datasets/{repo}/resolve/"),
    "cut connections": lambda hub, repo: hub.cut(times=10_000, path_contains=f"/datasets/{repo}/resolve/"),
    "timeouts": lambda hub, repo: hub.slow(30, path_contains=f"/datasets/{repo}/resolve/"),
    "500 on the listing": lambda hub, repo: hub.fail(500, times=10_000, path_contains=f"/datasets/{repo}/tree/"),
}


@pytest.mark.parametrize("outage", OUTAGES.values(), ids=OUTAGES.keys())
def test_a_source_outage_fails_the_build_publishes_no_hollow_index_and_is_retried_next_run(hub, run, store, outage):
    broken = BULK[2]
    outage(hub, broken)

    first = run()

    assert [f["id"] for f in first["failed"]] == [broken] and first["failed"][0]["outage"] is True
    assert broken not in first["rebuilt"]
    assert snapshot_envs(store)[broken] == 0  # listed, but no task of it is published
    assert stored_index(store, broken) is None or stored_index(store, broken)["complete"] is False

    hub.clear_faults()
    again = run()  # an hour later, the Hub is back: the same revision is built now, not a day later

    assert again["rebuilt"] == [broken] and again["skipped"]["failed_recently"] == []
    assert snapshot_envs(store)[broken] == 1
    rows = stored_index(store, broken)["rows"]
    assert len(rows) == 1 and not rows[0].get("error")


def test_a_file_the_hub_says_is_not_there_is_that_task_s_own_error_not_a_failed_build(hub, run, store):
    broken = BULK[2]
    hub.fail(404, times=10_000, path_contains=f"/datasets/{broken}/resolve/", headers={"X-Error-Code": "EntryNotFound"})

    summary = run()

    assert broken in summary["rebuilt"] and summary["failed"] == []
    rows = stored_index(store, broken)["rows"]
    assert len(rows) == 1 and "task.toml could not be read" in rows[0]["error"]


def stored_index(store, env_id):
    path = store.index_path(env_id)
    return json.loads(gzip.decompress(path.read_bytes())) if path.exists() else None


SHRINKS = {
    # 11 environments, 10 datasets and 1 Space before each
    "environments": lambda hub: [hub.repos.pop(("dataset", r)) for r in BULK[:3]],
    "datasets": lambda hub: (
        [hub.repos.pop(("dataset", r)) for r in BULK[:3]],
        [hub.add_repo("space", f"more/space-{i}", {"README.md": "---\nsdk: docker\ntags: [openenv]\n---\n"})
         for i in range(3)]),
    "Spaces": lambda hub: hub.repos.pop(("space", OPENENV_SPACE)),
}


@pytest.mark.parametrize("shrink", SHRINKS.values(), ids=SHRINKS.keys())
def test_a_listing_under_80_percent_of_the_last_snapshot_is_refused_unless_forced(hub, run, store, shrink, request):
    run(max_builds=0)  # the listing is what counts here, not the indexes
    before = pointer(store), published_files(store), store.listing_path.read_bytes()
    shrink(hub)

    refused = run()

    assert "under 80% of the last snapshot's" in refused["refused"]
    assert request.node.callspec.id in refused["refused"]
    assert refused["published"] is None
    assert (pointer(store), published_files(store), store.listing_path.read_bytes()) == before

    forced = run(force=True, max_builds=0)
    assert forced["refused"] is None and pointer(store)["db"] == forced["published"]["db"]


def test_a_listing_that_fails_half_way_publishes_nothing(hub, run, store):
    run(max_builds=0)
    before = pointer(store), published_files(store), store.listing_path.read_bytes()
    hub.fail(503, times=50, path_contains="filter=verifiers")  # the harbor query worked; this one never does

    with pytest.raises(Unavailable):
        run()

    assert (pointer(store), published_files(store), store.listing_path.read_bytes()) == before


# -- what the catalog holds -------------------------------------------------------------------------------------


def test_private_and_gated_stay_out_collections_come_in_and_only_docker_apps_are_spaces(hub, run, store):
    app_card = "---\nsdk: {sdk}\ntags: [{tags}]\n---\n"
    hub.add_repo("space", "pages/static-page", {"README.md": app_card.format(sdk="static", tags="openenv")})
    hub.add_repo("space", "pages/paper", {"README.md": app_card.format(sdk="docker",
                                                                       tags="openenv, research-article-template")})
    hub.add_repo("space", "demos/gradio-demo", {"README.md": app_card.format(sdk="gradio", tags="rl-environment")})
    hub.add_repo("dataset", "curated/untagged-tasks", {"README.md": "# Tasks nobody tagged\n"})
    hub.add_repo("space", "curated/untagged-app", {"README.md": app_card.format(sdk="docker", tags="demo")})
    settings = AdminSettings.from_json({"collections": {"picks": {"title": "Picks", "items": [
        "curated/untagged-tasks", "space:curated/untagged-app", PRIVATE_HARBOR, "nobody/gone"]}}})

    run(settings=settings)

    envs = set(snapshot_envs(store))
    assert {"curated/untagged-tasks", "space:curated/untagged-app"} <= envs
    assert not envs & {"space:pages/static-page", "space:pages/paper", "space:demos/gradio-demo", PRIVATE_HARBOR,
                       GATED_HARBOR}
    assert not store.index_path(GATED_HARBOR).exists() and not store.index_path(PRIVATE_HARBOR).exists()
    published = (store.snapshots_dir / pointer(store)["db"]).read_bytes()
    for secret in (b"private-tasks", b"gated-tasks", b"secret-task", b"gated-task"):
        assert secret not in published


# -- as a job and as a command ----------------------------------------------------------------------------------


def test_asking_for_the_snapshot_job_twice_queues_one_job(app, redis_client):
    with app.app_context():
        first, second = ensure_snapshot_job(), ensure_snapshot_job()

    assert first.id == second.id
    assert Queue("snapshot", connection=redis_client).job_ids == [first.id]


def test_the_snapshot_job_runs_in_a_worker_and_publishes_a_pointer(app, running_worker, redis_client):
    with app.app_context():
        job = ensure_snapshot_job()
    store = app.extensions["rlx.store"]

    wait_or_fail(lambda: job.get_status(refresh=True) in ("finished", "failed"), "the snapshot job to end", 60,
                 every=0.1)

    assert job.get_status() == "finished", Job.fetch(job.id, connection=redis_client).latest_result()
    published = pointer(store)
    assert published["db"] == job.return_value()["published"]["db"] and published["counts"]["envs"] == 13
    assert [s["state"] for s in job.get_meta()["progress"]["steps"]] == ["done"] * 4


def _rlx(args, storage, source):
    env = {**os.environ, "STORAGE_DIR": str(storage), "RLX_SOURCE": str(source)}
    return subprocess.run([sys.executable, "-m", "rlx.cli", *args], env=env, capture_output=True, text=True,
                          timeout=120)


def test_rlx_snapshot_build_prints_one_summary_line_and_refuses_a_shrunk_listing(tmp_path):
    source = tmp_path / "source"
    shutil.copytree(EXAMPLES, source)

    built = _rlx(["snapshot", "build"], tmp_path / "data", source)
    assert built.returncode == 0, built.stderr
    assert built.stdout.startswith("Published catalog-")
    assert "13 environments, 114 tasks; 12 indexes rebuilt" in built.stdout  # with the MiMo release and its twins;
    # the agent traces are recorded runs, not tasks
    assert built.stdout.count("\n") == 1

    for name in ("terminal-basics", "python-bugfix", "science-puzzles"):  # 10 of 13 left: under 80%
        shutil.rmtree(source / "datasets" / "rlx-examples" / name)
    refused = _rlx(["snapshot", "build"], tmp_path / "data", source)
    assert refused.returncode == 1 and refused.stdout == ""
    assert "under 80% of the last snapshot's" in refused.stderr and "--force" in refused.stderr

    forced = _rlx(["snapshot", "build", "--force"], tmp_path / "data", source)
    assert forced.returncode == 0 and "10 environments" in forced.stdout
