"""The Hub's environment.yaml manifest (hub-docs datasets-rl-environments.md: spec_version, environments[] with
id, frameworks, config_name, splits, dataset, runtime, reward) is read before our guesses from tags and layout,
and shown on the environment page as declared; answer-named keys inside it stay out like any metadata's."""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import EXAMPLES

SECRET = "ZX-MANIFEST-SECRET"
ROWS = EXAMPLES / "datasets" / "rlx-examples" / "math-word-problems"
HARBOR = EXAMPLES / "datasets" / "rlx-examples" / "terminal-basics"
VERIFIERS_MANIFEST = f"""spec_version: hf-rl-env-0.1
environments:
  - id: word-math
    title: Word problems
    frameworks: [verifiers]
    config_name: default
    splits: [train]
    runtime:
      network: false
      resources: {{cpus: 1, memory_mb: 512}}
    reward:
      type: scalar
      reference_answer: {SECRET}
"""
HARBOR_MANIFEST = """spec_version: hf-env-0.1
environments:
  - id: shell
    frameworks: harbor
    dataset: {path: tasks}
"""


def _repo(hub, name, source, tags, manifest):
    root = hub / "datasets" / "decl" / name
    shutil.copytree(source, root, ignore=shutil.ignore_patterns(".hub.json", "README.md"))
    (root / "README.md").write_text("---\npretty_name: " + name + "\ntags:\n" + "".join(f"- {t}\n" for t in tags)
                                    + "---\n")
    if manifest is not None:
        (root / "environment.yaml").write_text(manifest)


@pytest.fixture(scope="module")
def client(tmp_path_factory, redis_url):
    from rlx import create_app
    from rlx.config import Config

    hub = tmp_path_factory.mktemp("manifest") / "hub"
    # tagged harbor (and rl-environment, which the Hub adds with a manifest), declared verifiers: the declaration
    # wins over the tag
    _repo(hub, "declared-rows", ROWS, ["harbor", "rl-environment"], VERIFIERS_MANIFEST)
    # tagged only rl-environment, declared harbor: its task folders are read as Harbor tasks
    _repo(hub, "declared-harbor", HARBOR, ["rl-environment"], HARBOR_MANIFEST)
    _repo(hub, "broken-manifest", ROWS, ["verifiers", "rl-environment"], "environments: [unclosed\n")
    app = create_app(Config.from_env({"STORAGE_DIR": str(hub.parent / "data"), "REDIS_URL": redis_url,
                                      "SESSION_SECRET": "test-secret", "RLX_SOURCE": str(hub)}))
    return app.test_client()


def _ready(client, name):
    from tests.conftest import index_now

    index_now(client.application, f"decl/{name}")
    return client.get(f"/d/decl/{name}").get_data(as_text=True)


def test_the_manifest_chooses_the_format_before_the_tags(client):
    page = _ready(client, "declared-rows")
    assert "Rows dataset" in page and "Declared in environment.yaml" in page
    assert "hf-rl-env-0.1" in page and "word-math" in page and "verifiers" in page and "memory_mb: 512" in page
    assert SECRET not in page  # the reward's reference answer is the grader's
    assert SECRET not in client.get("/api/env/decl/declared-rows").get_data(as_text=True)


def test_a_dataset_tagged_only_rl_environment_and_declared_harbor_lists_its_tasks(client):
    page = _ready(client, "declared-harbor")
    assert "Harbor dataset" in page and "Declared in environment.yaml" in page and "hf-env-0.1" in page
    body = client.get("/api/env/decl/declared-harbor").get_json()
    assert body["adapter"] == "harbor" and body["tasks"] > 0


def test_a_broken_manifest_is_said_and_the_dataset_still_reads(client):
    page = _ready(client, "broken-manifest")
    assert "environment.yaml is not valid YAML" in page and "Rows dataset" in page


def test_rl_environment_with_a_framework_tag_counts_under_that_framework():
    from rlx.catalog.kinds import kind_of
    from rlx.sources.base import RepoRecord

    for tag, kind in (("verifiers", "verifiers"), ("skyrl", "other"), ("harbor", "harbor"), ("nemo-gym", "nemo-gym"),
                      ("openenv", "openenv")):
        assert kind_of(RepoRecord(id="a/b", repo_type="dataset", tags=("rl-environment", tag))) == kind
