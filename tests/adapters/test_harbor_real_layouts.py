"""Layouts and verifiers seen in real public Harbor repositories (the Harbor project's own cookbook nests its
tasks as `<package>/recipes/<task>/`; its multi-reward recipe writes reward.json from test.sh while its tests
hold dicts of their own)."""

from rlx.adapters import Env, pick
from rlx.adapters.harbor.reader import grading_of
from rlx.sources.base import FileEntry
from rlx.sources.folder import FolderSource
from rlx.store import Store

TASK_TOML = 'version = "1.0"\n[verifier]\ntimeout_sec = 60.0\n'


def _dataset(root, name, files):
    base = root / "datasets" / "someone" / name
    for path, text in {"README.md": "# No tags on this card\n", **files}.items():
        (base / path).parent.mkdir(parents=True, exist_ok=True)
        (base / path).write_text(text)
    source = FolderSource(root)
    return Env(source.repo_info("dataset", f"someone/{name}"), source, Store(root / "store"))


def test_an_untagged_dataset_with_tasks_three_folders_deep_is_harbor(tmp_path):
    env = _dataset(tmp_path, "cookbook", {
        "pyproject.toml": "[project]\nname = 'cookbook'\n",
        "cookbook/recipes/hello/task.toml": TASK_TOML,
        "cookbook/recipes/hello/instruction.md": "Write hello.txt.\n",
        "cookbook/recipes/hello/tests/test.sh": "echo 1 > /logs/verifier/reward.txt\n",
    })
    adapter = pick(env)
    assert adapter is not None and adapter.key == "harbor"
    index = adapter.build_index(env)
    assert [row.ref for row in index.rows] == ["cookbook/recipes/hello"]


def test_an_untagged_dataset_without_any_task_file_stays_unclaimed(tmp_path):
    env = _dataset(tmp_path, "notes", {"a/b/c/notes.md": "task.toml is mentioned here, but no such file\n"})
    assert pick(env) is None


def test_named_scores_come_from_the_script_that_writes_reward_json():
    texts = {
        "tests/test.sh": "python3 -c \"import json; json.dump({'correctness': 1, 'performance': 0}, "
                         "open('/logs/verifier/reward.json', 'w'))\"\n",
        "tests/test_correctness.py": 'records = [{"id": 1, "email": "a@example.com", "name": "A"}]\n',
    }
    entries = [FileEntry(path=p, type="file", size=len(t)) for p, t in texts.items()]
    grading = grading_of(texts, entries)
    assert grading["file"] == "reward.json"
    assert grading["scores"] == ["correctness", "performance"]


def test_a_verifier_that_installs_system_packages_is_flagged_where_it_runs_unprivileged():
    from rlx.adapters.harbor.reader import _verifier_caveats
    from rlx.adapters.harbor.layout import HARBOR

    installs = {"tests/test.sh": "#!/bin/bash\napt-get update\napt-get install -y curl\npytest /tests\n"}
    plain = {"tests/test.sh": "#!/bin/bash\n# apt-get install is not needed here\npytest /tests\n"}
    assert "apt-get" in " ".join(_verifier_caveats(installs, HARBOR))
    assert _verifier_caveats(plain, HARBOR) == []


def test_a_cloned_dataset_whose_card_has_no_tags_is_in_a_folders_catalog(tmp_path, make_config, redis_client):
    """A clone of a public Harbor dataset (no front matter: its card is plain Markdown) dropped into RLX_SOURCE
    shows on the home page with its tasks, while a tagged repository of some other kind still stays out."""
    from rlx import create_app
    from rlx.snapshot.refresh import refresh_catalog

    _dataset(tmp_path, "cookbook", {
        "cookbook/recipes/hello/task.toml": TASK_TOML,
        "cookbook/recipes/hello/instruction.md": "Write hello.txt.\n",
        "cookbook/recipes/hello/tests/test.sh": "echo 1 > /logs/verifier/reward.txt\n",
    })
    _dataset(tmp_path, "photos", {"README.md": "---\ntags: [image-classification]\n---\n# Cat pictures\n"})
    app = create_app(make_config(RLX_SOURCE=str(tmp_path)))
    config = app.config["RLX"]
    refresh_catalog(app.extensions["rlx.source"], app.extensions["rlx.store"], config.cache_dir, max_builds=2)

    home = app.test_client().get("/").get_data(as_text=True)
    assert 'href="/d/someone/cookbook"' in home and "someone/photos" not in home
    page = app.test_client().get("/d/someone/cookbook").get_data(as_text=True)
    assert "cookbook/recipes/hello" in page
