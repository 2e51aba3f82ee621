"""A health check's runs (oracle and nop, public and ownerless) are marked as such and kept off every community
count: leaderboards, outcomes, the heatmap, the latest rollouts and the list of environments. They still show
on the task's list of rollouts, labelled, and an index written before runs carried their purpose learns it."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing

from rlx.runs import community, health, record, runs_db
from rlx.runs.record import RunRecord
from tests.runs.test_community_compare import REF, write_run
from tests.runs_helpers import SCIENCE


def write_health_run(app, agent: str, reward: float, batch: str = "hb1") -> RunRecord:
    """A run as a health check's batch starts it (rlx/runs/batch.py): public, nobody's, with its purpose."""
    run = RunRecord(id=record.new_run_id(), env_id=SCIENCE, ref=REF, agent=agent, visitor=None,
                    visibility="public", status="finished", scored=True, rewards={"reward": reward},
                    finished_at=record.now_iso(), batch=batch, purpose="health")
    with app.app_context():
        store = app.extensions["rlx.store"]
        record.save(store, run)
        runs_db.upsert(store, run)
    return run


def board_rows(page: str) -> list[tuple]:
    return re.findall(r"<tr><td>(\d+)</td><td>([^<]+)</td><td>([\d.]+)</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td>",
                      page)


def test_a_leaderboard_does_not_count_a_health_checks_runs(indexed_app):
    person = write_run(indexed_app, agent="oracle", model=None, reward=0.0)  # a person's own oracle run counts
    checks = [write_health_run(indexed_app, "oracle", 1.0), write_health_run(indexed_app, "oracle", 1.0),
              write_health_run(indexed_app, "nop", 0.0)]
    client = indexed_app.test_client()
    page = client.get(f"/community/{SCIENCE}").get_data(as_text=True)
    assert board_rows(page) == [("1", "oracle", "0.000", "1", "1", "0")]  # the check's two rewards of 1 left out
    assert ">nop<" not in page
    assert not any(run.id in page for run in checks) and person.id in page
    home = client.get("/community").get_data(as_text=True)
    row = re.search(rf"{SCIENCE}</a></td><td>(\d+)</td>", home)
    assert row and row.group(1) == "1" and not any(run.id in home for run in checks)
    with indexed_app.app_context():
        store = indexed_app.extensions["rlx.store"]
        assert [(o["label"], o["solved"], o["failed"]) for o in community.outcomes(store, SCIENCE)] == \
            [("oracle", 0, 1)]
        assert community.heatmap(store, SCIENCE)["models"] == ["oracle"]
        assert community.heatmap(store, SCIENCE)["rows"][0]["cells"][0]["runs"] == 1

    task = client.get(f"/t/{SCIENCE}/{REF}").get_data(as_text=True)
    for run in checks:  # the task's own list still shows them, each labelled
        assert re.search(rf'<code>{run.id}</code></a> <span class="tag"[^>]*>health check</span>', task)
    assert not re.search(rf'<code>{person.id}</code></a> <span class="tag"[^>]*>health check', task)


def test_an_index_from_before_purposes_learns_which_runs_were_a_health_checks(indexed_app):
    store = indexed_app.extensions["rlx.store"]
    write_run(indexed_app, agent="oracle", model=None, reward=0.0)
    check = write_health_run(indexed_app, "oracle", 1.0, batch="hb-old")
    with closing(health.health_db(store)) as db:
        db.execute("INSERT INTO health_checks VALUES (?, 'rev', 'hb-old', ?, '{}')", (SCIENCE, record.now_iso()))
    # As an older server left it: no purpose on the row, and community tables and indexes made without the rule.
    with closing(sqlite3.connect(runs_db.index_path(store), isolation_level=None)) as db:
        for name in ("runs_community", "runs_community_recent", "runs_community_env_recent"):
            db.execute(f"DROP INDEX {name}")
        db.execute("CREATE INDEX runs_community ON runs (env_id, agent, model, ref, reward) "
                   "WHERE visibility='public' AND status='finished' AND scored=1")
        db.execute("UPDATE runs SET purpose=NULL")
        db.execute("DROP TABLE community_tasks")
        db.execute("CREATE TABLE community_tasks (env_id TEXT NOT NULL, ref TEXT NOT NULL, runs INTEGER NOT NULL, "
                   "reward_sum REAL NOT NULL, PRIMARY KEY (env_id, ref)) WITHOUT ROWID")
        db.execute("INSERT INTO community_tasks VALUES (?, ?, 2, 1.0)", (SCIENCE, REF))
        db.execute("PRAGMA user_version=0")
    with indexed_app.app_context():
        assert [(b["label"], b["runs"]) for b in community.leaderboard(store, SCIENCE)] == [("oracle", 1)]
        assert [e["runs"] for e in community.environments(store)] == [1]
    with closing(runs_db.connect(store)) as db:
        assert db.execute("SELECT purpose FROM runs WHERE id=?", (check.id,)).fetchone()[0] == "health"
