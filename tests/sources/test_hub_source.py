"""HubSource against the Hub stand-in, over real HTTP: what a visitor notices when the app reads the Hub.

Also a few checks of the stand-in's own protocol (the details huggingface_hub relies on), and that huggingface_hub's
own HfApi and hf_hub_download work against it unchanged.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import httpx2
import pytest
from huggingface_hub import HfApi, constants, hf_hub_download

from rlx.sources import AccessDenied, EntryNotFound, FileEntry, RepoNotFound, SourceError, TooLarge, Unavailable
from rlx.sources.hub import HubSource
from tests.stand_ins.hub import HubStandIn
from tests.stand_ins.hub_fixtures import (
    ALICE,
    BOB,
    BULK_HARBOR,
    GATED_HARBOR,
    OPENENV_SPACE,
    PRIVATE_HARBOR,
    PUBLIC_HARBOR,
    RL_ONLY,
    TASK_NAMES,
)

PUBLIC_HARBOR_IDS = {PUBLIC_HARBOR, GATED_HARBOR, *BULK_HARBOR}


class Waits:
    """Stands in for time.sleep: records each wait instead of spending it."""

    def __init__(self):
        self.seconds: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)


@pytest.fixture
def waits():
    return Waits()


@pytest.fixture
def patient_source(hub, waits):
    """A HubSource with the production retry policy, its waits recorded rather than slept."""
    return HubSource(hub.url, backoff=1.0, max_wait=20.0, sleep=waits)


# --------------------------------------------------------------------------------------------------- listing


def test_listing_over_many_pages_returns_every_repo_once(hub, hub_source):
    hub.list_page_size = 4  # 26 public harbor datasets: 7 pages

    records = hub_source.list_repos("dataset", ["harbor"])

    ids = [r.id for r in records]
    assert len(ids) == len(set(ids))
    assert set(ids) == PUBLIC_HARBOR_IDS
    assert hub.count("GET", "/api/datasets?") >= 3


def test_listing_puts_trending_first(hub_source):
    records = hub_source.list_repos("dataset", ["harbor"])

    scores = [r.trending_score for r in records]
    assert scores == sorted(scores, reverse=True)
    assert records[0].id == PUBLIC_HARBOR


def test_listing_merges_tags_as_or_with_one_query_per_tag(hub, hub_source):
    hub.list_page_size = 5

    records = hub_source.list_repos("dataset", ["harbor", "rl-environment"])

    ids = [r.id for r in records]
    assert RL_ONLY in ids  # carries only rl-environment
    assert ids.count(PUBLIC_HARBOR) == 1  # carries both
    assert set(ids) == PUBLIC_HARBOR_IDS | {RL_ONLY}
    assert [r.trending_score for r in records] == sorted((r.trending_score for r in records), reverse=True)
    assert hub.count("GET", "filter=harbor") >= 1 and hub.count("GET", "filter=rl-environment") >= 1
    assert hub.count("GET", "filter=harbor&filter=") == 0  # never one ANDed query


def test_listing_record_carries_what_the_catalog_shows(hub_source):
    record = next(r for r in hub_source.list_repos("dataset", ["harbor"]) if r.id == PUBLIC_HARBOR)

    assert (record.likes, record.downloads, record.trending_score) == (42, 1200, 90.0)
    assert record.pretty_name == "Terminal tasks"
    assert set(record.tags) >= {"harbor", "rl-environment"}
    assert record.created_at == "2025-03-01T10:00:00.000Z"
    assert record.sha and not record.private and not record.gated


def test_space_listing_carries_sdk_stage_and_host(hub, hub_source):
    hub.repos[("space", OPENENV_SPACE)].meta["runtime"] = {"stage": "SLEEPING"}

    [space] = hub_source.list_repos("space", ["openenv"])

    assert (space.id, space.sdk, space.stage) == (OPENENV_SPACE, "docker", "SLEEPING")
    assert space.host == "https://openenv-echo-env.hf.space"
    assert hub_source.repo_info("space", OPENENV_SPACE).host == "https://openenv-echo-env.hf.space"


# --------------------------------------------------------------------------------------------------- access


def test_private_repo_is_invisible_without_a_granted_token(hub_source):
    assert PRIVATE_HARBOR not in {r.id for r in hub_source.list_repos("dataset", ["harbor"])}
    assert PRIVATE_HARBOR not in {r.id for r in hub_source.list_repos("dataset", ["harbor"], token=BOB)}
    for token in (None, BOB):
        with pytest.raises(RepoNotFound, match=PRIVATE_HARBOR):
            hub_source.repo_info("dataset", PRIVATE_HARBOR, token=token)
        with pytest.raises(RepoNotFound):
            hub_source.read_file("dataset", PRIVATE_HARBOR, "README.md", token=token)


def test_private_repo_is_visible_with_the_granted_token(hub_source):
    assert PRIVATE_HARBOR in {r.id for r in hub_source.list_repos("dataset", ["harbor"], token=ALICE)}
    assert hub_source.repo_info("dataset", PRIVATE_HARBOR, token=ALICE).private
    files = {e.path for e in hub_source.list_tree("dataset", PRIVATE_HARBOR, "tasks", token=ALICE)}
    assert files == {"tasks/secret-task"}
    assert b"secret-task" in hub_source.read_file("dataset", PRIVATE_HARBOR, "tasks/secret-task/task.toml", token=ALICE)


def test_gated_repo_metadata_is_public_but_its_files_need_a_grant(hub_source):
    record = hub_source.repo_info("dataset", GATED_HARBOR)
    assert record.gated
    assert [e.path for e in hub_source.list_tree("dataset", GATED_HARBOR, "tasks")] == ["tasks/gated-task"]
    for token in (None, BOB):
        with pytest.raises(AccessDenied, match=GATED_HARBOR):
            hub_source.read_file("dataset", GATED_HARBOR, "README.md", token=token)

    assert b"Gated tasks" in hub_source.read_file("dataset", GATED_HARBOR, "README.md", token=ALICE)


def test_anonymous_calls_never_carry_the_servers_own_token(hub, hub_source, monkeypatch):
    hub.add_token("hf_server", "server", grants=(PRIVATE_HARBOR, GATED_HARBOR))
    monkeypatch.setenv("HF_TOKEN", "hf_server")
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_IMPLICIT_TOKEN", False)  # as on a server that has HF_TOKEN
    hub.reset_log()

    listed = {r.id for r in hub_source.list_repos("dataset", ["harbor"])}
    with pytest.raises(AccessDenied):
        hub_source.read_file("dataset", GATED_HARBOR, "README.md")
    hub_source.list_tree("dataset", PUBLIC_HARBOR).__next__()
    hub_source.paths_info("dataset", PUBLIC_HARBOR, ["README.md"])
    hub_source.repo_info("dataset", PUBLIC_HARBOR, token=ALICE)

    assert PRIVATE_HARBOR not in listed
    assert hub.request_tokens[:-1] == [None] * (len(hub.request_tokens) - 1)
    assert hub.request_tokens[-1] == ALICE


def test_a_token_the_hub_rejects_is_access_denied(hub_source):
    with pytest.raises(AccessDenied, match="refused"):
        hub_source.repo_info("dataset", PUBLIC_HARBOR, token="hf_revoked")


# --------------------------------------------------------------------------------------------------- not found


def test_missing_repo_is_repo_not_found(hub_source):
    with pytest.raises(RepoNotFound, match="nobody/nothing"):
        hub_source.repo_info("dataset", "nobody/nothing")
    with pytest.raises(RepoNotFound):
        list(hub_source.list_tree("dataset", "nobody/nothing"))
    with pytest.raises(RepoNotFound):
        hub_source.paths_info("dataset", "nobody/nothing", ["README.md"])


def test_a_malformed_repo_id_is_refused_without_asking_the_hub(hub, hub_source):
    hub.reset_log()
    for bad in ("harbor-org/terminal-tasks/tree/main", "../etc", "org/name?x=1", ""):
        with pytest.raises(RepoNotFound, match="not a repository id"):
            hub_source.repo_info("dataset", bad)
        with pytest.raises(RepoNotFound, match="not a repository id"):
            hub_source.read_file("dataset", bad, "README.md")
    assert hub.requests == []


def test_missing_file_folder_or_revision_is_entry_not_found(hub_source):
    with pytest.raises(EntryNotFound, match="nope.txt"):
        hub_source.read_file("dataset", PUBLIC_HARBOR, "nope.txt")
    with pytest.raises(EntryNotFound, match="tasks/nope"):
        list(hub_source.list_tree("dataset", PUBLIC_HARBOR, "tasks/nope"))
    with pytest.raises(EntryNotFound, match="no such revision"):
        hub_source.repo_info("dataset", PUBLIC_HARBOR, revision="0" * 40)
    with pytest.raises(EntryNotFound):
        hub_source.read_file("dataset", PUBLIC_HARBOR, "README.md", revision="v9")


# --------------------------------------------------------------------------------------------------- files


def test_tree_lists_one_level_or_every_level_across_pages(hub, hub_source):
    hub.tree_page_size = 4

    top = list(hub_source.list_tree("dataset", PUBLIC_HARBOR))
    tasks = list(hub_source.list_tree("dataset", PUBLIC_HARBOR, "tasks"))
    everything = list(hub_source.list_tree("dataset", PUBLIC_HARBOR, recursive=True))

    assert {(e.path, e.type) for e in top} == {("tasks", "directory"), ("README.md", "file")}
    assert [e.path for e in tasks] == [f"tasks/{name}" for name in TASK_NAMES]
    repo = hub.repos[("dataset", PUBLIC_HARBOR)]
    assert {e.path for e in everything if not e.is_dir} == set(repo.files)
    assert len(everything) == len({e.path for e in everything})  # pages neither overlap nor repeat
    readme = next(e for e in everything if e.path == "README.md")
    assert readme.size == len(repo.files["README.md"]) and readme.oid
    assert hub.count("GET", "/tree/main?") >= 3


def test_paths_info_batches_500_paths_per_call_and_omits_missing_ones(hub, hub_source):
    files = {f"tasks/t{i:04d}/task.toml": f"id = {i}\n" for i in range(1000)}
    hub.add_repo("dataset", "big/tasks", files)
    wanted = [*files, *(f"tasks/missing-{i}/task.toml" for i in range(200))]
    hub.reset_log()

    found = hub_source.paths_info("dataset", "big/tasks", wanted)

    assert hub.count("POST", "/paths-info/") == 3
    assert [e.path for e in found] == list(files)
    assert found[0] == FileEntry("tasks/t0000/task.toml", "file", size=7, oid=found[0].oid)
    assert hub_source.paths_info("dataset", "big/tasks", ["tasks/t0001", "tasks"]) == [
        FileEntry("tasks/t0001", "directory", oid=hub.repos[("dataset", "big/tasks")].oid("tasks/t0001")),
        FileEntry("tasks", "directory", oid=hub.repos[("dataset", "big/tasks")].oid("tasks")),
    ]
    assert hub_source.paths_info("dataset", "big/tasks", []) == []


def test_read_file_is_pinned_to_the_revision_and_capped(hub, hub_source):
    repo = hub.repos[("dataset", PUBLIC_HARBOR)]
    path = "tasks/fix-git/instruction.md"
    data = repo.files[path]
    hub.reset_log()

    assert hub_source.read_file("dataset", PUBLIC_HARBOR, path, revision=repo.sha) == data
    assert hub.requests == [("GET", f"/datasets/{PUBLIC_HARBOR}/resolve/{repo.sha}/{path}")]
    assert hub_source.read_file("dataset", PUBLIC_HARBOR, path, max_bytes=len(data)) == data
    with pytest.raises(SourceError, match="limit") as caught:
        hub_source.read_file("dataset", PUBLIC_HARBOR, path, max_bytes=len(data) - 1)
    assert type(caught.value) is TooLarge  # a fact about this file, not an outage


def test_file_names_with_spaces_and_accents_round_trip(hub, hub_source):
    hub.add_repo("dataset", "org/odd-names", {"data/meeting notes.txt": "notes", "données/été #1.md": "chaud"})

    paths = [e.path for e in hub_source.list_tree("dataset", "org/odd-names", recursive=True) if not e.is_dir]
    found = hub_source.paths_info("dataset", "org/odd-names", paths)

    assert sorted(paths) == ["data/meeting notes.txt", "données/été #1.md"]
    assert [e.path for e in found] == paths
    assert hub_source.read_file("dataset", "org/odd-names", "données/été #1.md") == "chaud".encode()
    assert [e.path for e in hub_source.list_tree("dataset", "org/odd-names", "données")] == ["données/été #1.md"]


def test_a_5000_task_repository_is_served_quickly(hub, hub_source):
    layout = ("task.toml", "instruction.md", "environment/Dockerfile", "tests/test.sh", "tests/test_outputs.py",
              "solution/solve.sh", *(f"environment/app/module_{j}.py" for j in range(20)))  # fmt: skip
    files = {f"tasks/task-{i:04d}/{name}": f"# {i} {name}\n" for i in range(5000) for name in layout}
    started = time.monotonic()
    hub.add_repo("dataset", "huge/harbor", files)
    tasks = list(hub_source.list_tree("dataset", "huge/harbor", "tasks"))
    tomls = hub_source.paths_info("dataset", "huge/harbor", [f"{e.path}/task.toml" for e in tasks])
    elapsed = time.monotonic() - started

    assert len(files) == 130_000
    assert len(tasks) == 5000 and len(tomls) == 5000
    assert elapsed < 10  # a generous bound: about 0.5 s here; benchmarks/ holds the real figures


# --------------------------------------------------------------------------------------------------- trouble


def test_rate_limit_then_success_is_retried_transparently(hub, patient_source, waits):
    hub.list_page_size = 10
    hub.fail(429, times=1, path_contains="cursor=", retry_after=7)

    records = patient_source.list_repos("dataset", ["harbor"])

    assert {r.id for r in records} == PUBLIC_HARBOR_IDS
    assert waits.seconds == [7]  # the Hub's Retry-After, honoured


def test_an_exhausted_rate_limit_waits_for_its_reset(hub, patient_source, waits):
    exhausted = {"RateLimit": '"api";r=0;t=12', "RateLimit-Policy": '"fixed window";"api";q=500;w=300'}
    hub.fail(429, path_contains="/tree/", headers=exhausted)

    assert [e.path for e in patient_source.list_tree("dataset", RL_ONLY, "data")] == ["data/train.jsonl"]
    assert waits.seconds == [12]


def test_server_errors_back_off_exponentially_then_succeed(hub, patient_source, waits):
    hub.fail(502, times=1, path_contains="/paths-info/")
    hub.fail(500, times=2, path_contains="/paths-info/")

    found = patient_source.paths_info("dataset", PUBLIC_HARBOR, ["README.md"])

    assert [e.path for e in found] == ["README.md"]
    assert waits.seconds == [1.0, 2.0, 4.0]
    assert hub.count("POST", "/paths-info/") == 4


def test_persistent_503_gives_unavailable_with_retry_after(hub, patient_source, waits):
    hub.fail(503, times=100, path_contains="/api/datasets/", retry_after=3)

    with pytest.raises(Unavailable, match="503") as caught:
        patient_source.repo_info("dataset", PUBLIC_HARBOR)

    assert caught.value.retry_after == 3
    assert PUBLIC_HARBOR in str(caught.value)
    assert hub.count("GET", "/api/datasets/") == 4
    assert waits.seconds == [3, 3, 3]


@pytest.mark.parametrize("fault", ["520", "599", "429", "cut"])
def test_any_5xx_a_429_or_a_cut_connection_is_retried_then_unavailable(hub, patient_source, waits, fault):
    """Never "this file is wrong": the indexing of a dataset must fail on it, not record an empty task."""
    path = "tasks/hello-world/task.toml"
    if fault == "cut":
        hub.cut(times=100, path_contains=path)
    else:
        hub.fail(int(fault), times=100, path_contains=path)

    with pytest.raises(Unavailable) as caught:
        patient_source.read_file("dataset", PUBLIC_HARBOR, path)

    assert (fault if fault != "cut" else "could not be reached") in str(caught.value)
    assert hub.count("GET", path) == 4 and waits.seconds == [1.0, 2.0, 4.0]


def test_a_retry_after_beyond_the_wait_budget_gives_up_at_once(hub, patient_source, waits):
    hub.fail(429, times=100, retry_after=600)

    with pytest.raises(Unavailable) as caught:
        patient_source.read_file("dataset", PUBLIC_HARBOR, "README.md")

    assert caught.value.retry_after == 600
    assert waits.seconds == [] and hub.count("GET", "/resolve/") == 1


def test_slow_answer_beyond_the_read_timeout_is_unavailable(hub):
    source = HubSource(hub.url, read_timeout=0.3, backoff=0.01)
    hub.slow(5, path_contains=f"/api/datasets/{PUBLIC_HARBOR}")

    started = time.monotonic()
    with pytest.raises(Unavailable, match="in time"):
        source.repo_info("dataset", PUBLIC_HARBOR)

    assert time.monotonic() - started < 2
    assert hub.count("GET", f"/api/datasets/{PUBLIC_HARBOR}") == 1  # a read timeout is not retried


def test_check_and_describe(hub, hub_source):
    hub_source.check()
    assert hub_source.describe() == f"the Hub at {hub.url}"

    closed = HubStandIn().start()
    gone = HubSource(closed.url, connect_timeout=1.0, backoff=0.01)
    closed.stop()
    with pytest.raises(SourceError, match="could not be reached"):
        gone.check()


# --------------------------------------------------------------------------------------------------- the stand-in


def test_stand_in_pagination_links_are_absolute(hub):
    hub.list_page_size = 2

    first = httpx2.get(f"{hub.url}/api/datasets", params={"filter": "harbor", "sort": "likes"})
    next_url = first.links["next"]["url"]
    second = httpx2.get(next_url)

    assert next_url.startswith(f"{hub.url}/api/datasets?") and "cursor=" in next_url
    assert "filter=harbor" in next_url and "sort=likes" in next_url
    assert len(first.json()) == len(second.json()) == 2
    assert {d["id"] for d in first.json()}.isdisjoint(d["id"] for d in second.json())


def test_stand_in_resolve_headers(hub):
    repo = hub.repos[("dataset", PUBLIC_HARBOR)]
    url = f"{hub.url}/datasets/{PUBLIC_HARBOR}/resolve/main/README.md"

    head = httpx2.head(url)
    partial = httpx2.get(url, headers={"Range": "bytes=0-2"})
    missing = httpx2.head(f"{hub.url}/datasets/{PUBLIC_HARBOR}/resolve/main/nope.md")
    gated = httpx2.head(f"{hub.url}/datasets/{GATED_HARBOR}/resolve/main/README.md")

    assert head.headers["X-Repo-Commit"] == repo.sha
    assert head.headers["ETag"] == f'"{repo.oid("README.md")}"'
    assert int(head.headers["Content-Length"]) == len(repo.files["README.md"]) and head.content == b""
    assert (partial.status_code, partial.content) == (206, repo.files["README.md"][:3])
    assert partial.headers["Content-Range"] == f"bytes 0-2/{len(repo.files['README.md'])}"
    assert (missing.status_code, missing.headers["X-Error-Code"]) == (404, "EntryNotFound")
    assert missing.headers["X-Repo-Commit"] == repo.sha
    assert (gated.status_code, gated.headers["X-Error-Code"]) == (401, "GatedRepo")


def test_huggingface_hub_itself_works_against_the_stand_in(hub, tmp_path):
    hub.list_page_size, hub.tree_page_size = 5, 5
    api = HfApi(endpoint=hub.url)

    listed = [d.id for d in api.list_datasets(filter="harbor", sort="trending_score", expand=["likes"], token=False)]
    tree = [f.path for f in api.list_repo_tree(PUBLIC_HARBOR, repo_type="dataset", recursive=True, token=False)]
    info = api.dataset_info(PRIVATE_HARBOR, token=ALICE)
    space = api.space_info(OPENENV_SPACE, token=False)
    local = hf_hub_download(PUBLIC_HARBOR, "README.md", repo_type="dataset", endpoint=hub.url, token=False,
                            cache_dir=tmp_path)  # fmt: skip

    assert set(listed) == PUBLIC_HARBOR_IDS and listed[0] == PUBLIC_HARBOR
    assert "tasks/hello-world/tests/test.sh" in tree
    assert info.private and info.card_data.pretty_name == "Private tasks"
    assert (space.runtime.stage, space.sdk) == ("RUNNING", "docker")
    assert open(local, "rb").read() == hub.repos[("dataset", PUBLIC_HARBOR)].files["README.md"]
    assert api.whoami(token=ALICE)["name"] == "alice"
    assert [p.path for p in api.get_paths_info(GATED_HARBOR, ["README.md", "x"], repo_type="dataset", token=False)] == [
        "README.md"
    ]


def test_stand_in_loads_a_folder_laid_out_like_the_hub(tmp_path):
    repo = tmp_path / "datasets" / "org" / "tasks"
    (repo / "tasks" / "a").mkdir(parents=True)
    (repo / "README.md").write_text("---\npretty_name: Org tasks\ntags: [harbor]\n---\nHello\n")
    (repo / "tasks" / "a" / "task.toml").write_text("x = 1\n")
    (repo / ".hub.json").write_text(json.dumps({"tags": ["openenv"], "likes": 5, "private": True}))
    (tmp_path / "spaces" / "org" / "app").mkdir(parents=True)
    (tmp_path / "spaces" / "org" / "app" / "README.md").write_text("---\nsdk: gradio\n---\n")

    with HubStandIn(tmp_path) as hub:
        hub.add_token("hf_org", "someone", orgs=("org",))
        source = HubSource(hub.url)
        record = source.repo_info("dataset", "org/tasks", token="hf_org")
        files = {e.path for e in source.list_tree("dataset", "org/tasks", recursive=True, token="hf_org")}
        space = source.repo_info("space", "org/app")

    assert (record.pretty_name, record.tags, record.likes, record.private) == ("Org tasks", ("harbor", "openenv"), 5,
                                                                               True)  # fmt: skip
    assert files == {"README.md", "tasks", "tasks/a", "tasks/a/task.toml"}  # .hub.json is not a repo file
    assert space.sdk == "gradio"


def test_calls_interleave_under_gevent():
    """Under gunicorn's gevent workers, ten slow Hub calls overlap instead of queueing one behind another."""
    script = """
from gevent import monkey; monkey.patch_all()
import time, gevent
from tests.stand_ins.hub import HubStandIn
from tests.stand_ins.hub_fixtures import populate_default_hub, PUBLIC_HARBOR
from rlx.sources.hub import HubSource
with populate_default_hub(HubStandIn()) as hub:
    hub.latency = 0.5
    source = HubSource(hub.url)
    started = time.monotonic()
    calls = [gevent.spawn(source.repo_info, "dataset", PUBLIC_HARBOR) for _ in range(10)]
    gevent.joinall(calls, raise_error=True)
    print(round(time.monotonic() - started, 2), {c.value.id for c in calls})
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parents[2])  # fmt: skip
    assert done.returncode == 0, done.stderr
    elapsed, ids = done.stdout.split(" ", 1)
    assert float(elapsed) < 2.5  # one after another would take 5 s
    assert PUBLIC_HARBOR in ids


@pytest.mark.parametrize("elsewhere", ["another stand-in", "localhost"])
def test_a_next_page_link_to_another_host_is_never_followed(hub, elsewhere):
    """Our headers (a token, once visitors sign in) go only to the configured Hub, whatever its Link header says."""
    from tests.stand_ins.hub import HubStandIn

    with HubStandIn() as other:
        hub.link_base = other.url if elsewhere == "another stand-in" else hub.url.replace("127.0.0.1", "localhost")
        hub.list_page_size = 4
        hub.add_token("hf_visitor_token", "visitor")
        source = HubSource(hub.url, backoff=1.0, max_wait=1.0, sleep=lambda s: None)
        with pytest.raises(SourceError, match="another host"):
            source.list_repos("dataset", ["harbor"], token="hf_visitor_token")
        assert other.requests == [] and other.request_tokens == []
        assert hub.count("GET", "/api/datasets?") == 1  # the first page only, from the Hub itself
