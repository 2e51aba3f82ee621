"""Bad rows and bad files: each gets a clear message in place of its task (never a 500), and the rest of the
dataset still reads. Fixtures are built here: a malformed line, a record that is not an object, a column of an
unexpected type, 50 MB cells in parquet and JSON Lines, a truncated parquet file, a broken gzip file."""

import gzip
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rlx import create_app
from tests.conftest import index_now

ORG = "bad"
BIG = 50 * 1024 * 1024


def verl(i: int, prompt=None) -> dict:
    return {"data_source": "openai/gsm8k", "ability": "math",
            "prompt": prompt if prompt is not None else [{"role": "user", "content": f"question {i}"}],
            "reward_model": {"style": "rule", "ground_truth": f"ZX-ANSWER-{i:04d}"}}


def dataset(root, name: str, files: dict) -> None:
    repo = root / "datasets" / ORG / name
    (repo / "data").mkdir(parents=True)
    (repo / "README.md").write_text(f"---\npretty_name: {name}\ntags: [verl]\n---\n")
    for rel, content in files.items():
        target = repo / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, pa.Table):
            pq.write_table(content, target, row_group_size=4)
        else:
            target.write_bytes(content if isinstance(content, bytes) else content.encode())


def lines(rows) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows)


@pytest.fixture(scope="module")
def bad_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("bad-source")
    dataset(root, "malformed-lines", {"data/train.jsonl": lines(
        [verl(0), '{"data_source": "x", "prompt": [', verl(2), "[1, 2, 3]", verl(4), "{" * 100_000 + "}" * 100_000])})
    dataset(root, "odd-types", {"data/train.jsonl": lines([verl(0), verl(1, prompt=12345), verl(2, prompt={"a": 1}),
                                                           verl(3)])})
    good = pa.Table.from_pylist([verl(i) for i in range(6)])
    dataset(root, "big-cell-parquet", {"data/train.parquet": pa.Table.from_pylist(
        [verl(0), {**verl(1), "ability": "x" * BIG}, verl(2)])})
    dataset(root, "big-cell-jsonl", {"data/train.jsonl": lines([verl(0), {**verl(1), "extra": "y" * BIG}, verl(2)])})
    truncated = root / "truncated.parquet"
    pq.write_table(good, truncated)
    dataset(root, "truncated-parquet", {"data/train-00000-of-00002.parquet": good,
                                        "data/train-00001-of-00002.parquet": truncated.read_bytes()[:-200],
                                        "data/test.parquet": good})
    dataset(root, "broken-gzip", {"data/train.jsonl.gz": gzip.compress(lines([verl(0)]).encode())[:20],
                                  "data/test.jsonl.gz": gzip.compress(lines([verl(0), verl(1)]).encode())})
    return root


@pytest.fixture(scope="module")
def bad_app(bad_root, tmp_path_factory, redis_url):
    from rlx.config import Config

    config = Config.from_env({"STORAGE_DIR": str(tmp_path_factory.mktemp("data")), "REDIS_URL": redis_url,
                              "SESSION_SECRET": "x", "RLX_SOURCE": str(bad_root)})
    app = create_app(config)
    for name in ("malformed-lines", "odd-types", "big-cell-parquet", "big-cell-jsonl", "truncated-parquet",
                 "broken-gzip"):
        index_now(app, f"{ORG}/{name}")
    return app


def page(app, url):
    response = app.test_client().get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.get_data(as_text=True)


def problem_of(html: str) -> str:
    assert "Could not read this row" in html
    return html[html.index("Could not read this row"):][:600]


def test_a_malformed_line_is_a_message_and_the_lines_around_it_read(bad_app):
    assert "not valid JSON" in problem_of(page(bad_app, f"/t/{ORG}/malformed-lines/train/1"))
    assert "question 2" in page(bad_app, f"/t/{ORG}/malformed-lines/train/2")
    assert "not a record of named fields" in problem_of(page(bad_app, f"/t/{ORG}/malformed-lines/train/3"))
    assert "not valid JSON" in problem_of(page(bad_app, f"/t/{ORG}/malformed-lines/train/5"))  # nested too deep
    env = page(bad_app, f"/d/{ORG}/malformed-lines")
    assert env.count('class="task-row') == 6 and "question 4" in env


def test_a_column_of_an_unexpected_type_is_a_message_for_that_row_only(bad_app):
    assert "no prompt" in problem_of(page(bad_app, f"/t/{ORG}/odd-types/train/1"))
    assert "no prompt" in problem_of(page(bad_app, f"/t/{ORG}/odd-types/train/2"))
    assert "question 3" in page(bad_app, f"/t/{ORG}/odd-types/train/3")


@pytest.mark.parametrize("name", ["big-cell-parquet", "big-cell-jsonl"])
def test_a_50_mb_cell_is_a_message_and_never_reaches_the_page(bad_app, name):
    html = page(bad_app, f"/t/{ORG}/{name}/train/1")
    assert "MB" in problem_of(html) and len(html) < 1_000_000
    assert "question 2" in page(bad_app, f"/t/{ORG}/{name}/train/2")
    assert len(page(bad_app, f"/d/{ORG}/{name}")) < 1_000_000


def test_a_truncated_parquet_file_is_named_and_the_other_files_still_read(bad_app):
    env = page(bad_app, f"/d/{ORG}/truncated-parquet")
    assert "train-00001-of-00002.parquet" in env and "truncated or damaged" in env
    assert "6 rows" in env  # train: the good file's six; test: six more
    assert "question 5" in page(bad_app, f"/t/{ORG}/truncated-parquet/train/5")
    assert "question 3" in page(bad_app, f"/t/{ORG}/truncated-parquet/test/3")
    assert bad_app.test_client().get(f"/t/{ORG}/truncated-parquet/train/6").status_code == 404


def test_a_broken_gzip_file_is_named_and_the_other_split_reads(bad_app):
    env = page(bad_app, f"/d/{ORG}/broken-gzip")
    assert "train.jsonl.gz" in env and "not a readable gzip file" in env
    assert "question 1" in page(bad_app, f"/t/{ORG}/broken-gzip/test/1")


def test_no_answer_reaches_any_of_these_pages(bad_app):
    for name in ("malformed-lines", "odd-types", "truncated-parquet"):
        assert "ZX-ANSWER" not in page(bad_app, f"/d/{ORG}/{name}")
        assert "ZX-ANSWER" not in page(bad_app, f"/t/{ORG}/{name}/train/0")


def test_cells_json_cannot_hold_still_show_on_the_page_and_in_json(tmp_path, redis_url):
    import datetime
    import decimal

    from rlx.config import Config

    # eight rows, so the short columns of few values read as labels (and are shown); the blob is withheld
    table = pa.table({"question": ["What is in the blob?"] + [f"And here {i}?" for i in range(8)],
                      "blob": pa.array([b"\x00\x01binary"] + [b"\xff" * 10] * 8, pa.binary()),
                      "when": pa.array([datetime.datetime(2025, 1, 2, 3, 4, 5)] * 9, pa.timestamp("s")),
                      "price": pa.array([decimal.Decimal("1.50")] * 8 + [None], pa.decimal128(5, 2)),
                      "score": [float("nan")] + [1.0] * 8})
    dataset(tmp_path, "odd-cells", {"data/train.parquet": table})
    app = create_app(Config.from_env({"STORAGE_DIR": str(tmp_path / "data"), "REDIS_URL": redis_url,
                                      "SESSION_SECRET": "x", "RLX_SOURCE": str(tmp_path)}))
    index_now(app, f"{ORG}/odd-cells")
    html = page(app, f"/t/{ORG}/odd-cells/train/0")
    assert "What is in the blob?" in html and "2025-01-02T03:04:05" in html and "1.50" in html
    assert "<code>blob</code>: a column that is neither the prompt" in html
    api = app.test_client().get(f"/api/task/{ORG}/odd-cells/train/0")
    assert api.status_code == 200 and "2025-01-02T03:04:05" in api.get_data(as_text=True)
