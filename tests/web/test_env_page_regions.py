"""The environment page keeps its task list and overview between views (rlx/web/environments/shared_regions.py):
a repeat view shows the same page, a new index of the dataset shows its own tasks at once, and what is one
visitor's (their name, their private runs) never reaches another visitor's page."""

from __future__ import annotations

import re
import shutil

import pytest

from rlx import create_app
from tests.conftest import EXAMPLES, index_now
from tests.runs.test_community_compare import write_run

DATASET = "rlx-examples/terminal-basics"
TASK_LINK = re.compile(r'<a href="/t/rlx-examples/terminal-basics/([^"]+)">')


@pytest.fixture
def copied(make_config, redis_client, tmp_path):
    """The examples copied, so a test can add a task to one of them and index it again."""
    source = tmp_path / "source"
    shutil.copytree(EXAMPLES, source)
    app = create_app(make_config(RLX_SOURCE=str(source)))
    index_now(app, DATASET)
    return app, source / "datasets" / DATASET / "tasks"


def _tasks(html: str) -> list[str]:
    return TASK_LINK.findall(html.split('id="tasks"', 1)[1])


def test_a_repeat_view_draws_the_same_task_list_and_filters(copied):
    app, _ = copied
    client = app.test_client()
    first = client.get(f"/d/{DATASET}?f=difficulty:easy").get_data(as_text=True)
    again = client.get(f"/d/{DATASET}?f=difficulty:easy").get_data(as_text=True)
    other = client.get(f"/d/{DATASET}").get_data(as_text=True)
    assert _tasks(first) and _tasks(first) == _tasks(again)
    assert len(_tasks(other)) > len(_tasks(first))  # another query is its own list, not the one kept before


def test_a_new_index_of_the_dataset_shows_its_new_task_at_once(copied):
    app, tasks = copied
    client = app.test_client()
    before = _tasks(client.get(f"/d/{DATASET}").get_data(as_text=True))
    assert "zz-added-task" not in before
    shutil.copytree(tasks / before[0], tasks / "zz-added-task")
    index_now(app, DATASET)  # what the indexing job does when the dataset changes
    after = client.get(f"/d/{DATASET}").get_data(as_text=True)
    assert "zz-added-task" in _tasks(after) and f"{len(before) + 1} tasks" in after
    fragment = client.get(f"/d/{DATASET}", headers={"HX-Request": "true", "HX-Target": "tasks"}).get_data(as_text=True)
    assert "zz-added-task" in _tasks('id="tasks"' + fragment)


def _session_of(client, raw: str):
    with client.session_transaction() as session:
        session["visitor"] = raw
    return client


def test_my_private_run_shows_on_my_page_alone_whoever_looks_first(indexed_app):
    import hashlib

    raw = "v" * 24  # this browser's session id; runs record its hash as their owner
    owner = "s:" + hashlib.sha256(raw.encode()).hexdigest()[:32]
    science = "rlx-examples/science-puzzles"
    index_now(indexed_app, science)
    mine = write_run(indexed_app, visibility="private", visitor=owner, env_id=science)
    public = write_run(indexed_app, env_id=science)
    anonymous = indexed_app.test_client()
    me = _session_of(indexed_app.test_client(), raw)
    for client, sees_mine in ((anonymous, False), (me, True), (anonymous, False), (me, True)):
        page = client.get(f"/d/{science}")
        html = page.get_data(as_text=True)
        assert f'href="/r/{public.id}"' in html
        assert (f'href="/r/{mine.id}"' in html) == sees_mine
        if sees_mine:
            assert page.headers["Cache-Control"] == "private, no-store"
        else:
            assert "private" not in page.headers.get("Cache-Control", "")
