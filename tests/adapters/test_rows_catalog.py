"""Rows datasets in the catalog: every dataset card opens its page, rows datasets count under their format's
Kind, give their splits and row counts to the snapshot and their first rows (answers withheld) to task search."""

import sqlite3

import pytest

from rlx.snapshot.build import build_snapshot
from rlx.snapshot.row_sources import StoredIndexes
from rlx.catalog import fetch_listing
from tests.conftest import HARBOR_EXAMPLES, index_now
from tests.web.test_rows_pages import ROWS_EXAMPLES


@pytest.fixture
def catalog_client(app):
    for repo_id in (*HARBOR_EXAMPLES, *ROWS_EXAMPLES, "rlx-examples/mimo-release", "rlx-examples/mimo-release-harbor"):
        index_now(app, repo_id)
    return app.test_client()


def test_every_dataset_card_links_to_its_page_and_each_page_opens(catalog_client):
    cards = catalog_client.get("/api/search?size=100").get_json()["cards"]
    datasets = [c for c in cards if c["repo_type"] == "dataset"]
    assert len(datasets) >= 7 and all(c["url"] for c in datasets)
    for card in datasets:
        assert catalog_client.get(card["url"]).status_code == 200, card["id"]


def test_kind_chips_count_rows_datasets_by_their_format(catalog_client, app):
    for repo_id in ("rlx-examples/agent-traces", "rlx-examples/packed-harbor-tasks", "rlx-examples/shell-katas"):
        index_now(app, repo_id)
    kinds = dict(catalog_client.get("/api/search").get_json()["facets"]["kind"])
    assert kinds["harbor"] == 5  # three in folders, one packed into parquet, the MiMo release's conversion
    assert kinds["verifiers"] == 1 and kinds["nemo-gym"] == 1
    # Five chips, as the design names them: a plain table, traces, loose task folders, mimo-sample and the MiMo
    # release (verl-shaped rows; countdown-verl is gated, so not in the public catalog) are all "Other"
    assert kinds["other"] == 5 and set(kinds) <= {"harbor", "openenv", "verifiers", "nemo-gym", "other"}
    cards = {c["id"]: c for c in catalog_client.get("/api/search?kind=nemo-gym").get_json()["cards"]}
    assert cards["rlx-examples/tool-calls-nemo-gym"]["task_count"] == 12


def test_task_search_finds_rows_and_never_their_answers(catalog_client):
    found = catalog_client.get("/api/search/tasks?q=icosahedron").get_json()
    assert [(t["env_id"], t["ref"]) for t in found["tasks"]] == [("rlx-examples/trivia-table", "test/2")]
    assert catalog_client.get("/api/search/tasks?q=ZX-ANSWER").get_json()["total"] == 0


def test_the_snapshot_holds_splits_row_counts_and_a_bounded_number_of_rows_per_split(app, tmp_path, monkeypatch):
    from rlx.adapters.rows import build

    monkeypatch.setattr(build, "SEARCHED_PER_SPLIT", 5)
    for repo_id in ROWS_EXAMPLES:
        index_now(app, repo_id)
    store, source = app.extensions["rlx.store"], app.extensions["rlx.source"]
    build_snapshot(fetch_listing(source), StoredIndexes(store), tmp_path / "catalog.db")
    db = sqlite3.connect(tmp_path / "catalog.db")
    splits = db.execute("SELECT config, split, rows FROM env_splits WHERE env_id = ? ORDER BY split",
                        ("rlx-examples/tool-calls-nemo-gym",)).fetchall()
    assert splits == [("default", "train", 9), ("default", "validation", 3)]
    per_split = dict(db.execute("SELECT substr(ref, 1, instr(ref, '/') - 1), count(*) FROM tasks "
                                "WHERE env_key = (SELECT env_key FROM envs WHERE id = ?) GROUP BY 1", ("rlx-examples/tool-calls-nemo-gym",)).fetchall())
    assert per_split == {"train": 5, "validation": 3}
    count = db.execute("SELECT task_count FROM envs WHERE id = ?", ("rlx-examples/math-word-problems",)).fetchone()
    assert count == (40,)
    everything = "\n".join(str(row) for table in ("tasks", "envs") for row in db.execute(f"SELECT * FROM {table}"))
    assert "ZX-ANSWER" not in everything
