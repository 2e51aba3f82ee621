"""A repository too big to list is walked: the task list is published before the files, no task folder is listed."""

from urllib.parse import unquote

import pytest

from rlx.adapters import Env
from rlx.adapters.harbor import discover
from rlx.adapters.harbor.adapter import HarborAdapter
from rlx.adapters.indexes import load_pack, load_partial_index
from rlx.store import Store

TASKS = 5000
APP_FILES = 20


def big_repo_files(n: int = TASKS) -> dict[str, str]:
    """n tasks under tasks/, each shipping a whole app folder the index never needs."""
    files = {"README.md": "---\ntags: [harbor]\npretty_name: Big app tasks\n---\n# Big\n"}
    for i in range(n):
        base = f"tasks/app-{i:05d}/"
        files[base + "task.toml"] = f'schema_version = "1.4"\n[metadata]\ndifficulty = "{("easy", "hard")[i % 2]}"\n'
        files[base + "instruction.md"] = f"Fix app number {i}.\n"
        files[base + "tests/test.sh"] = "echo 1 > /logs/verifier/reward.txt\n"
        for j in range(APP_FILES):
            files[base + f"app/src/module_{j}.py"] = f"# module {j}\n"
    return files


class StopAtFetching(Exception):
    pass


class PublicationCheck:
    """A progress sink that, when fetching starts, reads what the store already publishes (and may stop there)."""

    def __init__(self, store, env_id, stop=False):
        self.store, self.env_id, self.stop, self.seen_at_fetch = store, env_id, stop, None

    def start(self, step, total=None, message=""):
        if step == "fetching":
            self.seen_at_fetch = load_partial_index(self.store, self.env_id)
            if self.stop:
                raise StopAtFetching()

    def update(self, *args, **kwargs):
        pass

    def finish(self, *args, **kwargs):
        pass


@pytest.fixture
def big_hub(hub):
    hub.add_repo("dataset", "bigorg/app-tasks", big_repo_files())
    hub.add_repo("dataset", "bigorg/few-app-tasks", big_repo_files(120))
    hub.latency = 0.01  # every Hub answer takes 10 ms
    return hub


def test_a_huge_repository_is_walked_and_its_task_list_published_before_any_file_is_read(big_hub, hub_source,
                                                                                         tmp_path, monkeypatch):
    # 5,000 tasks, 115,000 files: more than a recursive listing is allowed to read, so it is walked.
    store = Store(tmp_path)
    env = Env(hub_source.repo_info("dataset", "bigorg/app-tasks"), hub_source, store)
    check = PublicationCheck(store, env.id, stop=True)
    big_hub.reset_log()

    with pytest.raises(StopAtFetching):
        HarborAdapter().build_index(env, check)

    published = check.seen_at_fetch
    assert published is not None and not published.complete and published.summary["walked"]
    assert len(published.rows) == TASKS and all(r.extra.get("pending") for r in published.rows)
    assert published.rows[0].ref == "app-00000" and published.rows[-1].ref == "app-04999"
    assert big_hub.count(contains="/resolve/") == 0  # published before a single file was fetched
    # The walker listed the root and tasks/ (paginated), and never a folder inside a task.
    listed = [unquote(path.split("?")[0].split("/tree/", 1)[1]).partition("/")[2] for method, path in big_hub.requests
              if "/tree/" in path]
    assert set(listed) == {"", "tasks"}, set(listed)
    # The root's recursive listing stops at its cap (that is how the walk begins); below the root, a recursive
    # listing of tasks/ would read inside every task through a path line 80 accepts: each listing is one level.
    recursive = [unquote(path.split("?")[0].split("/tree/", 1)[1]).partition("/")[2] for method, path
                 in big_hub.requests if "/tree/" in path and "recursive=true" in path.lower()]
    assert set(recursive) <= {""}, set(recursive)


def test_a_walked_repository_reads_only_the_files_its_index_needs(big_hub, hub_source, tmp_path, monkeypatch):
    monkeypatch.setattr(discover, "MAX_LISTED_FILES", 1_000)
    store = Store(tmp_path)
    env = Env(hub_source.repo_info("dataset", "bigorg/few-app-tasks"), hub_source, store)
    big_hub.reset_log()
    index = HarborAdapter().build_index(env)
    assert index.complete and len(index.rows) == 120 and index.summary["walked"]
    assert {r.facets["difficulty"] for r in index.rows} == {"easy", "hard"}
    fetched = [unquote(p) for m, p in big_hub.requests if "/resolve/" in p]
    assert len(fetched) == 120 * 3 + 1  # task.toml, instruction.md, tests/test.sh per task, and the card
    assert not any("/app/" in p for p in fetched)
    assert all("/tree/" not in p or p.split("/tree/", 1)[1].count("%2F") == 0 for m, p in big_hub.requests)
    assert load_pack(store, env.id)["tasks"]["app-00042"]["walked"] is True


def test_a_walked_tasks_other_folders_are_listed_when_opened(big_hub, hub_source, tmp_path, monkeypatch):
    monkeypatch.setattr(discover, "MAX_LISTED_FILES", 1_000)
    store = Store(tmp_path)
    env = Env(hub_source.repo_info("dataset", "bigorg/few-app-tasks"), hub_source, store)
    adapter = HarborAdapter()
    index = adapter.build_index(env)
    big_hub.reset_log()
    top = adapter.list_folder(env, index, "app-00007", "")
    assert {e["path"] for e in top} >= {"task.toml", "instruction.md", "tests", "app"}
    assert big_hub.count(contains="/tree/") == 1  # the task's root, listed now that someone opened it
    app = adapter.list_folder(env, index, "app-00007", "app/src")
    assert len(app) == 20 and all(e["path"].startswith("app/src/") for e in app)
    src = adapter.read_file(env, index, "app-00007", "app/src/module_3.py")
    assert src is not None and src.text == "# module 3\n"
    assert big_hub.count(contains="paths-info") + big_hub.count(contains="/resolve/") >= 1
