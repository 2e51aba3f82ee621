"""Community pages (public, finished, scored rollouts; never who ran them) and Compare (up to four runs of a task).

Records are written the way the job writes them (record.save + runs_db.upsert, step events through the Redis
stream and archived to the store), or made by the real runner where that is cheap (oracle on a bundled task).
"""

from __future__ import annotations

import re
import shutil

import pytest

from rlx.queue import get_redis
from rlx.runs import events, record, runs_db
from rlx.runs.record import RunRecord
from tests.runs_helpers import SCIENCE, wait_for
from tests.runs.test_run_pages import TASK, post_run, run_id_of

REF = "chemistry/molar-mass-table"
OTHER_REF = "statistics/sensor-summary"
OWNER = "s:" + "a" * 32  # an owner hash as records keep it
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (`bwrap`) is not installed")


def write_run(app, ref=REF, agent="terminus-2", model="gpt-test", visibility="public", status="finished",
              reward=1.0, steps=(), env_id=SCIENCE, visitor=OWNER) -> RunRecord:
    run = RunRecord(id=record.new_run_id(), env_id=env_id, ref=ref, agent=agent, model=model, visitor=visitor,
                    visibility=visibility, status=status, scored=reward is not None,
                    rewards=None if reward is None else {"reward": reward}, finished_at=record.now_iso(),
                    timings={"total": 3.5}, outcome="The verifier wrote a reward.")
    with app.app_context():
        store = app.extensions["rlx.store"]
        record.save(store, run)
        runs_db.upsert(store, run)
        for n, text in enumerate(steps, start=1):
            events.publish(get_redis(), run.id, "step", n=n, message=text,
                           calls=[{"name": "keystrokes", "text": f"echo {text}\n"}], observation=f"saw {text}")
        events.archive(get_redis(), store, run.id)
    return run


def test_community_lists_public_finished_scored_runs_and_never_their_owner(indexed_app):
    shown = [write_run(indexed_app, reward=1.0), write_run(indexed_app, reward=0.0, model="other-model")]
    hidden = [write_run(indexed_app, visibility="private", visitor="s:" + "b" * 32),
              write_run(indexed_app, status="failed", reward=None),
              write_run(indexed_app, status="finished", reward=None),
              write_run(indexed_app, status="running", reward=None)]
    client = indexed_app.test_client()
    home = client.get("/community").get_data(as_text=True)
    row = re.search(rf"{SCIENCE}</a></td><td>(\d+)</td><td>(\d+)</td><td>([\d.]+)</td>", home)
    assert row and row.groups() == ("2", "1", "0.500")
    for run in shown:
        assert f'href="/r/{run.id}"' in home
    # Each latest rollout links to its task and says when it finished the way the catalog does, not as a raw stamp.
    latest = home[home.index("Latest rollouts"):]
    assert latest.count(f'<a href="/t/{SCIENCE}/{REF}">{SCIENCE} · {REF}</a>') == 2
    assert latest.count(">just now</time>") == 2 and not re.search(r">\d{4}-\d\d-\d\dT", latest)
    for run in hidden:
        assert run.id not in home
    page = client.get(f"/community/{SCIENCE}").get_data(as_text=True)
    for html in (home, page):
        assert OWNER not in html and "b" * 32 not in html and "s:" + "a" * 8 not in html
    for run in hidden:
        assert run.id not in page


def test_community_lists_only_environments_the_public_catalog_lists(indexed_app):
    """A dataset made private (or deleted) after its runs were public leaves the catalog at the next build: its
    name and counts leave the community list with it, though its public runs are still in the index of runs."""
    listed = write_run(indexed_app, reward=1.0)
    gone = write_run(indexed_app, reward=1.0, env_id="someone/made-private-since", ref="t1")
    home = indexed_app.test_client().get("/community").get_data(as_text=True)
    assert f'href="/r/{listed.id}"' in home and SCIENCE in home
    assert "made-private-since" not in home and gone.id not in home


def test_leaderboard_heatmap_and_the_tasks_nobody_tried(indexed_app):
    for reward in (1.0, 0.0):
        write_run(indexed_app, reward=reward)  # terminus-2 · gpt-test: mean 0.5 over 2
    write_run(indexed_app, agent="oracle", model=None, reward=1.0)
    write_run(indexed_app, ref=OTHER_REF, agent="nop", model=None, reward=0.0, visibility="private")  # not counted
    page = indexed_app.test_client().get(f"/community/{SCIENCE}").get_data(as_text=True)
    board = re.findall(r"<tr><td>(\d+)</td><td>([^<]+)</td><td>([\d.]+)</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td>",
                       page)
    assert board == [("1", "oracle", "1.000", "1", "1", "1"), ("2", "terminus-2 · gpt-test", "0.500", "2", "1", "1")]
    svg = page[page.index("<svg"):page.index("</svg>")]
    assert "<script" not in svg and " on" not in re.sub(r'"[^"]*"', '""', svg)  # plain SVG, no handlers
    assert f"<title>{REF} · terminus-2 · gpt-test: mean 0.50 over 2 rollouts</title>" in svg
    assert f"<title>{REF} · oracle: mean 1.00 over 1 rollout</title>" in svg
    untried = page[page.index("Tasks nobody has tried"):page.index("Latest rollouts")]
    assert f"/t/{SCIENCE}/{OTHER_REF}" in untried  # only a private rollout: nobody in the community tried it
    assert f"/t/{SCIENCE}/{REF}\"" not in untried


def test_compare_lines_up_the_steps_of_runs_of_one_task(indexed_app):
    a = write_run(indexed_app, steps=("look around", "write the file"), reward=1.0)
    b = write_run(indexed_app, steps=("give up",), reward=0.0, model="other-model")
    response = indexed_app.test_client().get(f"/compare?runs={a.id},{b.id}")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    steps = re.findall(r'<tr class="compare-step"><th scope="row">Step (\d)</th>(.*?)</tr>', html, re.S)
    assert [n for n, _ in steps] == ["1", "2"]
    first, second = (re.findall(r"<td>(.*?)</td>", cells, re.S) for _, cells in steps)
    assert "look around" in first[0] and "give up" in first[1]
    assert "write the file" in second[0] and "—" in second[1]  # b had stopped after one step
    rewards = re.findall(r'<td class="compare-reward">([^<]*)</td>', html)
    assert rewards == ["1", "0"]
    assert OWNER not in html


def how_to_pick(html: str) -> bool:
    """Compare's own page: what it does, how to pick runs, and a link to where public runs are."""
    return ("<h1>Compare rollouts</h1>" in html and "How to pick the runs" in html and "Compare with…" in html
            and 'href="/community"' in html)


@pytest.mark.parametrize("query", ["", "?runs=", "?runs=,%20,"])
def test_compare_with_no_runs_says_what_it_does_and_where_runs_are(indexed_app, query):
    response = indexed_app.test_client().get(f"/compare{query}")
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and how_to_pick(html) and 'role="alert"' not in html


@pytest.mark.parametrize("query, status, sentence", [
    ("?runs=abc", 400, "is not a run id"),
    ("?runs=../../etc/passwd", 400, "is not a run id"),
    ("?runs=" + ",".join(f"{c}" * 12 for c in "abcde"), 400, "At most 4 runs"),
    ("?runs=" + ",".join(f"{n:012d}" for n in range(5000)), 400, "At most 4 runs"),  # a list of any length
    ("?runs=zzzzzzzzzzzz", 404, "There is no run zzzzzzzzzzzz"),
])
def test_compare_refuses_bad_lists_with_a_sentence_on_its_own_page(indexed_app, query, status, sentence):
    response = indexed_app.test_client().get(f"/compare{query}")
    html = response.get_data(as_text=True)
    assert response.status_code == status and sentence in html and how_to_pick(html)
    assert response.headers["Cache-Control"] == "no-store"


def test_compare_refuses_runs_of_different_tasks(indexed_app):
    a, b = write_run(indexed_app), write_run(indexed_app, ref=OTHER_REF)
    response = indexed_app.test_client().get(f"/compare?runs={a.id}&runs={b.id}")
    html = response.get_data(as_text=True)
    assert response.status_code == 400 and "only rollouts of the same task" in html and how_to_pick(html)


def test_a_private_run_is_compared_only_by_its_owner(indexed_app):
    owner = indexed_app.test_client()
    mine = run_id_of(post_run(owner))  # private, from the real form: owned by this browser's session
    public = write_run(indexed_app)
    assert owner.get(f"/compare?runs={mine},{public.id}").status_code == 200
    stranger = indexed_app.test_client()
    response = stranger.get(f"/compare?runs={public.id},{mine}")
    assert response.status_code == 404 and f"There is no run {mine}" in response.get_data(as_text=True)
    assert mine not in stranger.get("/community").get_data(as_text=True)


@needs_bwrap
def test_a_public_oracle_run_reaches_the_community_pages(indexed_app, running_worker):
    client = indexed_app.test_client()
    run_id = run_id_of(post_run(client, visibility="public"))
    run = wait_for(indexed_app, run_id)
    assert run.status == "finished" and run.reward == 1
    home = indexed_app.test_client().get("/community").get_data(as_text=True)
    assert f'href="/r/{run_id}"' in home
    page = indexed_app.test_client().get(f"/community/{SCIENCE}").get_data(as_text=True)
    assert "<tr><td>1</td><td>oracle</td><td>1.000</td><td>1</td><td>1</td><td>1</td>" in page
    assert f"/t/{SCIENCE}/{REF}\"" not in page[page.index("Tasks nobody has tried"):page.index("Latest rollouts")]


def test_compare_accepts_runs_of_a_task_the_adapter_names_as_an_alias(indexed_app, monkeypatch):
    from rlx.adapters.harbor.adapter import HarborAdapter as Adapter

    a, b = write_run(indexed_app), write_run(indexed_app, ref=OTHER_REF)
    monkeypatch.setattr(Adapter, "aliases", lambda self, env, index, ref: [(SCIENCE, OTHER_REF)] if ref == REF else [])
    response = indexed_app.test_client().get(f"/compare?runs={a.id},{b.id}")
    assert response.status_code == 200 and f"{SCIENCE} · {OTHER_REF}" in response.get_data(as_text=True)


def test_rewriting_a_run_counts_it_once_and_where_it_now_stands(indexed_app):
    run = write_run(indexed_app, status="running", reward=None)
    with indexed_app.app_context():
        store = indexed_app.extensions["rlx.store"]
        run.status, run.scored, run.rewards = "finished", True, {"reward": 1.0}
        for _ in range(3):  # the job rewrites a record several times; each is one upsert
            runs_db.upsert(store, run)
    home = indexed_app.test_client().get("/community").get_data(as_text=True)
    assert f"{SCIENCE}</a></td><td>1</td><td>1</td><td>1.000</td>" in home
    with indexed_app.app_context():
        run.visibility = "private"
        runs_db.upsert(indexed_app.extensions["rlx.store"], run)
    assert SCIENCE not in indexed_app.test_client().get("/community").get_data(as_text=True).split("Latest")[0] \
        .split("<h2>Environments</h2>")[1]


def test_the_heatmap_shows_each_new_rollout_and_drops_a_withdrawn_one_at_once(indexed_app):
    """The drawn heatmap is kept between views; it must never show rows older than the index."""
    first = write_run(indexed_app, reward=1.0)
    client = indexed_app.test_client()

    def cell() -> str | None:
        page = client.get(f"/community/{SCIENCE}").get_data(as_text=True)
        found = re.search(rf"<title>{re.escape(REF)} · terminus-2 · gpt-test: ([^<]+)</title>", page)
        return found.group(1) if found else None

    assert cell() == "mean 1.00 over 1 rollout"
    assert cell() == "mean 1.00 over 1 rollout"  # drawn once, shown again
    write_run(indexed_app, reward=0.0)
    assert cell() == "mean 0.50 over 2 rollouts"
    with indexed_app.app_context():
        first.visibility = "withdrawn"  # an admin took it down
        runs_db.upsert(indexed_app.extensions["rlx.store"], first)
    assert cell() == "mean 0.00 over 1 rollout"


def test_compare_with_from_a_run_page_offers_the_other_ended_runs_of_the_task_and_its_aliases(indexed_app,
                                                                                             monkeypatch):
    from rlx.adapters.harbor.adapter import HarborAdapter as Adapter

    monkeypatch.setattr(Adapter, "aliases", lambda self, env, index, ref: [(SCIENCE, OTHER_REF)] if ref == REF else [])
    mine = write_run(indexed_app, steps=["look"])
    same_task = write_run(indexed_app, agent="nop", model=None, reward=0.0)
    alias = write_run(indexed_app, ref=OTHER_REF, agent="oracle", model=None)
    running = write_run(indexed_app, status="running", reward=None)
    private = write_run(indexed_app, visibility="private", visitor="s:" + "b" * 32)
    elsewhere = write_run(indexed_app, ref="physics/projectile-range")
    client = indexed_app.test_client()

    page = client.get(f"/r/{mine.id}").get_data(as_text=True)
    link = re.search(r'<a class="compare-with" href="([^"]+)">Compare with…</a>', page)
    assert link and link.group(1) == f"/compare?runs={mine.id}"

    chooser = client.get(link.group(1))
    assert chooser.status_code == 200
    html = chooser.get_data(as_text=True)
    offered = set(re.findall(r'<input type="checkbox" name="runs" value="([a-z0-9]{12})">', html))
    assert offered == {same_task.id, alias.id}  # not the running one, another's private one, another task's
    assert f'<input type="hidden" name="runs" value="{mine.id}">' in html and "pick up to 3" in html
    assert {running.id, private.id, elsewhere.id}.isdisjoint(offered)

    # What the form sends: the preselected run and the ones ticked, side by side.
    both = client.get(f"/compare?runs={mine.id}&runs={alias.id}")
    assert both.status_code == 200 and "2 rollouts of" in both.get_data(as_text=True)
    heads = re.findall(r'<th scope="col"><a href="/r/[a-z0-9]{12}">[a-z0-9]{12}</a><br>([^<]*)</th>',
                       both.get_data(as_text=True))
    assert heads == ["terminus-2 · gpt-test", "oracle"]  # a run without a model is named by its agent alone
    assert f"{SCIENCE} · {OTHER_REF}" in both.get_data(as_text=True)


def test_a_running_run_offers_no_compare_link_yet(indexed_app):
    run = write_run(indexed_app, status="running", reward=None)
    page = indexed_app.test_client().get(f"/r/{run.id}").get_data(as_text=True)
    assert "Compare with…" not in page


def test_a_run_s_provenance_names_its_sandbox_and_model_for_a_reader_not_by_class_path(indexed_app):
    run = write_run(indexed_app, agent="oracle", model=None)
    run.provenance = {"sandbox": "local (bubblewrap, rlx.runs.local_env:LocalEnvironment)"}  # as the runner keeps it
    with indexed_app.app_context():
        record.save(indexed_app.extensions["rlx.store"], run)
    page = indexed_app.test_client().get(f"/r/{run.id}").get_data(as_text=True)
    assert "<dt>Sandbox</dt><dd>Local (bubblewrap)</dd>" in page
    assert "<dt>Model</dt><dd>no model (oracle)</dd>" in page
    assert "LocalEnvironment" not in page and "<dd>none</dd>" not in page


def test_compare_s_breadcrumb_starts_at_environments_like_every_other_page(indexed_app):
    runs = [write_run(indexed_app), write_run(indexed_app, model="other-model")]
    page = indexed_app.test_client().get("/compare?runs=" + ",".join(r.id for r in runs)).get_data(as_text=True)
    crumbs = page[page.index('class="crumbs"'):page.index("</nav>", page.index('class="crumbs"'))]
    assert crumbs.index('<a href="/">Environments</a>') < crumbs.index(f'<a href="/d/{SCIENCE}">')


def test_compare_shows_each_run_s_verifier_output_so_a_failure_says_why(indexed_app):
    a = write_run(indexed_app, steps=("write the file",), reward=1.0)
    b = write_run(indexed_app, steps=("give up",), reward=0.0, model="other-model")
    with indexed_app.app_context():
        store = indexed_app.extensions["rlx.store"]
        for run, text in ((a, "1 passed"), (b, "FAILED test_table: the molar mass column is missing")):
            folder = record.trial_dir(store, run.id) / "verifier"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "test-stdout.txt").write_text(text + "\n")
    html = indexed_app.test_client().get(f"/compare?runs={a.id},{b.id}").get_data(as_text=True)
    row = re.search(r'<tr class="compare-verifier">(.*?)</tr>', html, re.S)
    assert row and "The verifier's output" in row.group(1)
    cells = re.findall(r"<td>(.*?)</td>", row.group(1), re.S)
    assert "1 passed" in cells[0] and "the molar mass column is missing" in cells[1]
