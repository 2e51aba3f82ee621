"""The catalog finds environments as the Hub marks them: a dataset tagged only `harbor` whose repository holds its
task folders packed into one `tasks.parquet` (no task.toml anywhere) lists and opens every task, answers withheld;
a dataset tagged only `skyrl` is listed."""

from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.conftest import index_now
from tests.adapters.test_packed_archives import good_task, tar_bytes

ORG = "hubmarks"
SECRET = re.compile(r"ZX-ANSWER-\d{4}")
WORDS = ("lantern", "harbour", "compass")


@pytest.fixture
def marked_app(tmp_path, make_config, redis_client):
    from rlx import create_app

    packed = tmp_path / "hub" / "datasets" / ORG / "packed-only"
    packed.mkdir(parents=True)
    (packed / "README.md").write_text("---\npretty_name: Packed only\ntags:\n- harbor\n---\n# Packed only\n")
    pq.write_table(pa.table({"task_id": [f"say-{w}" for w in WORDS],
                             "task_binary": [tar_bytes(good_task(w)) for w in WORDS]}), packed / "tasks.parquet")
    skyrl = tmp_path / "hub" / "datasets" / ORG / "skyrl-only"
    skyrl.mkdir(parents=True)
    (skyrl / "README.md").write_text("---\npretty_name: SkyRL only\ntags:\n- skyrl\n---\n# SkyRL only\n")
    (skyrl / "train.jsonl").write_text('{"prompt": [{"role": "user", "content": "Add 2 and 3."}], '
                                       '"env_class": "gsm8k", "reward_spec": {"ground_truth": "5"}}\n')
    return create_app(make_config(RLX_SOURCE=str(tmp_path / "hub")))


def test_a_dataset_tagged_only_harbor_holding_a_tasks_parquet_lists_and_opens_every_task(marked_app):
    index = index_now(marked_app, f"{ORG}/packed-only")
    assert index.adapter == "rows" and index.summary["processor"] == "packed-harbor"
    assert len(index.rows) == len(WORDS) and not any(row.error for row in index.rows)
    client = marked_app.test_client()
    env_page = client.get(f"/d/{ORG}/packed-only").get_data(as_text=True)
    assert "No folder in this repository holds a task.toml" not in env_page
    for row, word in zip(index.rows, WORDS):
        page = client.get(f"/t/{ORG}/packed-only/{row.ref}")
        assert page.status_code == 200
        html = page.get_data(as_text=True)
        assert f"Print the word {word} backwards." in html
        assert not SECRET.search(html)


def test_a_dataset_tagged_only_skyrl_is_in_the_catalog(marked_app):
    from rlx.catalog import fetch_listing

    listed = {r.id for r in fetch_listing(marked_app.extensions["rlx.source"])}
    assert f"{ORG}/skyrl-only" in listed and f"{ORG}/packed-only" in listed
