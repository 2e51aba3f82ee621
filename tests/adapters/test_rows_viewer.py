"""Rows read through the dataset viewer, over HTTP against the Hub stand-in's viewer routes: our client's calls,
paging by at most 100, and what a visitor sees when the viewer is slow, failing or does not serve a dataset."""

import io
import json
import re

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rlx import create_app
from rlx.sources.errors import RepoNotFound, Unavailable
from rlx.sources.viewer import ViewerClient
from tests.conftest import index_now

SECRET = re.compile(r"ZX-ANSWER-\d{4}")
VERL_ID = "lab/arith-verl"
CARD = "---\npretty_name: Arithmetic (verl)\ntags: [verl, rl-environment]\n---\n# Arithmetic\n"


def verl_rows(n: int, split: str) -> list[dict]:
    return [{"data_source": "openai/gsm8k", "ability": "math",
             "prompt": [{"role": "user", "content": f"{split} question {i}: what is {i} + {i}?"}],
             "reward_model": {"style": "rule", "ground_truth": f"ZX-ANSWER-{i % 10000:04d}"},
             "extra_info": {"split": split, "index": i, "level": "easy" if i % 2 else "hard"}} for i in range(n)]


def parquet_bytes(rows: list[dict]) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(rows), buffer, row_group_size=64)
    return buffer.getvalue()


def add_verl_dataset(hub, repo_id=VERL_ID, meta=None):
    files = {"README.md": CARD, "data/train-00000-of-00001.parquet": parquet_bytes(verl_rows(230, "train")),
             "data/test.jsonl": "".join(json.dumps(r) + "\n" for r in verl_rows(5, "test"))}
    hub.add_repo("dataset", repo_id, files, {"trendingScore": 5, **(meta or {})})


@pytest.fixture
def viewer(hub):
    add_verl_dataset(hub)
    return ViewerClient(hub.url, timeout=2.0)


@pytest.fixture
def hub_app(hub, make_config):
    add_verl_dataset(hub)
    app = create_app(make_config(RLX_SOURCE="hub", HF_ENDPOINT=hub.url, HF_VIEWER_URL=hub.url))
    app.extensions["rlx.source"].viewer.timeout = 1.0
    return app


# --- the client -----------------------------------------------------------------------------------------------

def test_client_reads_validity_splits_info_and_pages(viewer, hub):
    assert viewer.is_valid(VERL_ID)["viewer"] is True
    assert [(s["config"], s["split"]) for s in viewer.splits(VERL_ID)] == [("default", "train"), ("default", "test")]
    assert viewer.info(VERL_ID, "default")["splits"]["train"]["num_examples"] == 230
    page = viewer.rows(VERL_ID, "default", "train", offset=200, length=500)
    assert page["num_rows_total"] == 230 and len(page["rows"]) == 30 and page["rows"][0]["row_idx"] == 200
    assert hub.count("GET", "length=100") == 1  # asked for 500, sent the viewer's maximum


def test_client_searches_filters_and_reads_statistics(viewer):
    found = viewer.search(VERL_ID, "default", "train", "GSM8K", offset=100)
    assert found["num_rows_total"] == 230 and found["rows"][0]["row_idx"] == 100
    assert viewer.search(VERL_ID, "default", "train", "no such words")["rows"] == []
    hard = viewer.filter(VERL_ID, "default", "test", "\"ability\"='math'")
    assert hard["num_rows_total"] == 5
    stats = viewer.statistics(VERL_ID, "default", "train")
    assert {s["column_name"] for s in stats["statistics"]} >= {"data_source", "ability"}


def test_client_turns_5xx_timeouts_and_unknown_datasets_into_clear_errors(viewer, hub):
    hub.fail(503, path_contains="/rows", retry_after=7)
    with pytest.raises(Unavailable) as failed:
        viewer.rows(VERL_ID, "default", "train", 0)
    assert "503" in str(failed.value) and failed.value.retry_after == 7
    hub.slow(3.0, path_contains="/splits", times=1)
    with pytest.raises(Unavailable, match="did not answer"):
        viewer.splits(VERL_ID)
    with pytest.raises(RepoNotFound):
        viewer.splits("nobody/nothing")


# --- the rows adapter through the viewer ------------------------------------------------------------------------

def test_index_through_the_viewer_pages_by_100_and_never_stores_an_answer(hub_app, hub):
    index = index_now(hub_app, VERL_ID)
    assert index.summary["origin"] == "viewer" and index.summary["processor"] == "verl"
    assert index.summary["rows_total"] == 235 and len(index.rows) == 235
    asked = [path for method, path in hub.requests if path.startswith("/rows")]
    assert asked and all(int(re.search(r"length=(\d+)", p).group(1)) <= 100 for p in asked)
    assert not SECRET.search(json.dumps([r.__dict__ for r in index.rows]))
    columns = {c["name"]: c for c in index.summary["columns"]}
    assert "reward_model" in columns  # the column stays; its ground truth does not
    assert columns["ability"]["rows"] == 230  # counted by the viewer over the whole split


def test_a_task_page_reads_its_one_row_from_the_viewer(hub_app, hub):
    index_now(hub_app, VERL_ID)
    client = hub_app.test_client()
    hub.reset_log()
    html = client.get(f"/t/{VERL_ID}/train/150").get_data(as_text=True)
    assert "train question 150" in html and not SECRET.search(html)
    assert hub.count("GET", "offset=150") == 1


def test_a_failing_viewer_shows_a_message_in_place_of_the_task_and_the_rest_still_reads(hub_app, hub):
    index_now(hub_app, VERL_ID)
    client = hub_app.test_client()
    hub.fail(500, path_contains="offset=7&", times=1)
    broken = client.get(f"/t/{VERL_ID}/train/7")
    assert broken.status_code == 200
    text = broken.get_data(as_text=True)
    assert "Could not read this row" in text and "answered 500" in text
    assert "train question 8" in client.get(f"/t/{VERL_ID}/train/8").get_data(as_text=True)
    hub.slow(2.0, path_contains="offset=9&", times=1)
    slow = client.get(f"/t/{VERL_ID}/train/9")
    assert slow.status_code == 200 and "did not answer" in slow.get_data(as_text=True)


def test_a_dataset_the_viewer_does_not_serve_is_read_from_its_files(hub_app, hub):
    add_verl_dataset(hub, "lab/no-viewer", meta={"viewer": False})
    index = index_now(hub_app, "lab/no-viewer")
    assert index.summary["origin"] == "files" and index.summary["rows_total"] == 235
    html = hub_app.test_client().get("/t/lab/no-viewer/train/200").get_data(as_text=True)
    assert "train question 200" in html and not SECRET.search(html)


def test_search_reaches_every_row_of_a_split_through_the_viewer(hub_app, hub, monkeypatch):
    from rlx.adapters.rows import build

    monkeypatch.setattr(build, "VIEWER_ROWS_PER_SPLIT", 50)  # the list holds rows 0-49 of each split
    index_now(hub_app, VERL_ID)
    client = hub_app.test_client()
    listed = client.get(f"/d/{VERL_ID}?q=question+170").get_data(as_text=True)
    assert 'class="task-row' not in listed and "Search every row of" in listed
    found = client.get(f"/d/{VERL_ID}/search?part=train&q=GSM8K&page=9")
    html = found.get_data(as_text=True)
    assert found.status_code == 200 and "230 rows" in html and "/t/lab/arith-verl/train/160" in html
    assert not SECRET.search(html)
    hub.fail(503, path_contains="/search", retry_after=11)
    failing = client.get(f"/d/{VERL_ID}/search?part=train&q=GSM8K")
    assert failing.status_code == 503 and failing.headers["Retry-After"] == "11"
    assert client.get(f"/d/{VERL_ID}/search?part=nope&q=x").status_code == 404
    assert client.get(f"/d/{VERL_ID}/search?part=train&q=x&page=0").status_code == 400


def test_a_viewer_failing_while_indexing_leaves_the_files_read_directly(hub_app, hub):
    hub.fail(502, path_contains="/splits", times=1)
    index = index_now(hub_app, VERL_ID)
    assert index.summary["origin"] == "files" and index.summary["rows_total"] == 235
    assert any("could not be used" in p and "502" in p for p in index.summary["problems"])


def test_eval_results_beside_the_tasks_are_read_as_runs_even_where_the_viewer_would_serve_them(hub_app, hub):
    # The viewer folds every file not named for a split into "train": Verifiers' outputs/evals/.../results.jsonl
    # would become tasks, each graded completion beside its prompt. The files are read directly instead.
    tasks = [{"question": f"What is {i} + {i}?", "answer": f"ZX-ANSWER-{i:04d}"} for i in range(4)]
    results = [{"example_id": i, "prompt": [{"role": "user", "content": f"What is {i} + {i}?"}],
                "completion": [{"role": "assistant", "content": f"ZX-ANSWER-{i:04d}"}], "reward": 1.0,
                "answer": f"ZX-ANSWER-{i:04d}"} for i in range(4)]
    hub.add_repo("dataset", "lab/with-evals", {
        "README.md": "---\ntags: [verifiers, rl-environment]\n---\n# Sums\n",
        "data/train.jsonl": "".join(json.dumps(r) + "\n" for r in tasks),
        "outputs/evals/sums--model/abc/results.jsonl": "".join(json.dumps(r) + "\n" for r in results)})
    assert hub_app.extensions["rlx.source"].viewer.is_valid("lab/with-evals")["viewer"] is True
    index = index_now(hub_app, "lab/with-evals")
    assert index.summary["origin"] == "files" and index.summary["rows_total"] == 4 and len(index.rows) == 4
    [runs] = index.summary["rollouts"]
    assert runs["path"] == "outputs/evals/sums--model/abc/results.jsonl" and runs["format"] == "verifiers"
    assert any("results.jsonl (runs, not tasks)" in p for p in index.summary["problems"])
    client = hub_app.test_client()
    page = client.get("/d/lab/with-evals").get_data(as_text=True)
    assert "Rollouts in this repository" in page and "4 tasks" in page
    trace = client.get("/d/lab/with-evals/rollouts/0/2").get_data(as_text=True)
    assert "What is 2 + 2?" in trace and not SECRET.search(trace)
