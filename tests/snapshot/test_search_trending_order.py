"""A trending page lists its environments exactly as SQL orders them ("trending DESC, id"), ties included, whether
the snapshot's rowids follow that order (a page is then a slice of the matches) or the file predates it (a walk of
the order's index): hidden and pinned environments, filters and deep pages alike."""

import sqlite3
from unittest import mock

import pytest

from rlx.snapshot import build, build_snapshot, search_envs
from rlx.snapshot.schema import TRENDING_ROWIDS, open_immutable
from rlx.sources.base import RepoRecord

# Many environments share a trending value, and datasets and Spaces share names, so the order of a tie is the id's
# ("org/…" before "space:org/…" before "zeta/…"): the listing hands them over in another order.
RECORDS = [
    RepoRecord(id=f"{org}/env-{i}", repo_type=kind, tags=("agents",) if i % 3 else ("agents", "math"),
               trending_score=[0.0, 2.5, 2.5, 9.0, None][i % 5], card={"description": f"Agent number {i}"})
    for i in range(40) for org, kind in (("zeta", "dataset"), ("org", "space"), ("org", "dataset"))
]
SEARCHES = [
    {}, {"q": "agent"}, {"filters": {"tags": ["math"]}}, {"exclude_ids": ["org/env-3", "space:org/env-8"]},
    {"pinned": ["zeta/env-39", "space:org/env-0"]},
    {"q": "agent", "pinned": ["org/env-4"], "exclude_ids": ["zeta/env-9"]},
]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("trending")
    current = folder / "catalog.db"
    build_snapshot(list(reversed(RECORDS)), {}, current)
    # A file from before: rowids in another order (by name here), and no word of it in meta.
    older = folder / "older.db"
    in_trending_order = build._public
    with mock.patch.object(build, "_public", lambda records: (
            sorted(in_trending_order(records)[0], key=lambda pair: pair[0].id), {})):
        build_snapshot(list(reversed(RECORDS)), {}, older)
    with sqlite3.connect(older) as db:
        db.execute("DELETE FROM meta WHERE key = ?", (TRENDING_ROWIDS,))
    dbs = {"current": open_immutable(current), "older": open_immutable(older)}
    yield dbs
    for db in dbs.values():
        db.close()


def sql_order(db, search) -> list[str]:
    """What SQL lists for `search`: its pins first (in the admin's order), then every other match by trending."""
    hidden = set(search.get("exclude_ids", ()))
    words = search.get("q")
    tags = search.get("filters", {}).get("tags", [])
    rows = db.execute("SELECT id, search_blob, tags FROM envs ORDER BY trending DESC, id").fetchall()
    matches = [env_id for env_id, blob, env_tags in rows if env_id not in hidden
               and (not words or any(word.startswith(words) for word in blob.split()))
               and all(f'"{tag}"' in env_tags for tag in tags)]
    pins = [env_id for env_id in search.get("pinned", ()) if env_id in matches]
    return pins + [env_id for env_id in matches if env_id not in pins]


def paged(db, search, size) -> list[str]:
    seen, page = [], 1
    while cards := search_envs(db, page=page, size=size, **search)["cards"]:
        seen += [card["id"] for card in cards]
        page += 1
    return seen


def test_the_catalog_has_ties_and_the_older_file_other_rowids(files):
    db = files["current"]
    tied = db.execute("SELECT count(*) FROM (SELECT trending FROM envs GROUP BY trending HAVING count(*) > 1)")
    assert tied.fetchone()[0] >= 3
    by_rowid = "SELECT id FROM envs ORDER BY rowid"
    assert files["older"].execute(by_rowid).fetchall() != db.execute(by_rowid).fetchall()


@pytest.mark.parametrize("which", ["current", "older"])
@pytest.mark.parametrize("search", SEARCHES, ids=[str(s) for s in SEARCHES])
def test_every_trending_page_follows_the_sql_order(files, which, search):
    db = files[which]
    expected = sql_order(db, search)
    assert len(expected) > 24
    assert paged(db, search, size=7) == expected
    assert [card["id"] for card in search_envs(db, page=3, size=10, **search)["cards"]] == expected[20:30]
