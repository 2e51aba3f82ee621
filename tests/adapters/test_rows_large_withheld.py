"""Large withheld parquet columns are never read: a SWE-bench-shaped row's gold patch is not decoded for the index
nor for a task page, yet it is still named as withheld, with its reason. The proof is a file whose patch column
chunks are overwritten with garbage: a reader that touched them would fail, and these pages read fine. Columns a
processor may show, and every column when what it shows depends on the row, are still read."""

import json
import re

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rlx import create_app
from rlx.adapters.rows import columns, regroup
from tests.conftest import index_now

ORG = "wide"
PATCH_MARK = "+gold fix line ZX-PATCH"
ROWS, GROUP = 12, 6


def swe_row(i: int) -> dict:
    return {"instance_id": f"acme__lib-{i}", "repo": "acme/lib", "base_commit": f"{i:040x}", "version": "1.0",
            "problem_statement": f"Issue {i}: the parser drops the last line of a file.",
            "patch": "".join(f"{PATCH_MARK} {i}.{n}\n" for n in range(300)),  # 9 KB: past UNREAD_CELL_BYTES
            "test_patch": "+def test_last_line(): ...\n", "FAIL_TO_PASS": '["tests/test_parser.py::test_last_line"]',
            "PASS_TO_PASS": "[]", "hints_text": ""}


def write_repo(root, name: str, table: pa.Table) -> object:
    repo = root / "datasets" / ORG / name
    (repo / "data").mkdir(parents=True)
    (repo / "README.md").write_text(f"---\npretty_name: {name}\n---\n")
    (repo / ".hub.json").write_text(json.dumps({"sha": f"{len(name):040x}"}))  # files edited below keep it
    path = repo / "data" / "test.parquet"
    pq.write_table(table, path, row_group_size=GROUP)
    return path


def spoil_column(path, column: str) -> None:
    """Overwrite every chunk of `column` with bytes no parquet reader can decode (the footer is left intact)."""
    meta = pq.ParquetFile(path).metadata
    data = bytearray(path.read_bytes())
    for group in range(meta.num_row_groups):
        chunks = meta.row_group(group)
        chunk = next(chunks.column(j) for j in range(chunks.num_columns) if chunks.column(j).path_in_schema == column)
        start = chunk.dictionary_page_offset or chunk.data_page_offset
        data[start:start + chunk.total_compressed_size] = b"\xff" * chunk.total_compressed_size
    path.write_bytes(bytes(data))


@pytest.fixture(scope="module")
def wide_app(tmp_path_factory, redis_url):
    from rlx.config import Config

    root = tmp_path_factory.mktemp("wide-source")
    spoil_column(write_repo(root, "swe-spoiled", pa.Table.from_pylist([swe_row(i) for i in range(ROWS)])), "patch")
    write_repo(root, "swe-whole", pa.Table.from_pylist([swe_row(i) for i in range(ROWS)]))
    # a table nobody described: its prompt is whichever column holds the longest text, so every column is read
    write_repo(root, "long-notes", pa.table({"note_id": [f"n{i}" for i in range(ROWS)],
                                             "body": [f"Note {i} says: " + "ever onward " * 600 for i in range(ROWS)]}))
    app = create_app(Config.from_env({"STORAGE_DIR": str(tmp_path_factory.mktemp("data")), "REDIS_URL": redis_url,
                                      "SESSION_SECRET": "x", "RLX_SOURCE": str(root)}))
    copied = write_repo(root, "swe-copied", pa.Table.from_pylist([swe_row(i) for i in range(ROWS)]))
    with pytest.MonkeyPatch.context() as patch:  # the sample leaves a row group of more than 20 KB partly unread
        patch.setattr(columns, "SAMPLE_GROUP_BYTES", 20_000)
        for name in ("swe-spoiled", "swe-whole", "long-notes"):
            index_now(app, f"{ORG}/{name}")
        # row groups "too large" for a page: copied in groups of one row
        patch.setattr(regroup, "REGROUP_BYTES", 1_000)
        patch.setattr(regroup, "COPY_GROUP_BYTES", 1)
        index_now(app, f"{ORG}/swe-copied")
    spoil_column(copied, "problem_statement")  # from now on only the copy can show an issue
    return app


def page(app, url: str) -> str:
    response = app.test_client().get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.get_data(as_text=True)


def test_a_gold_patch_never_read_still_leaves_every_task_readable(wide_app):
    env = page(wide_app, f"/d/{ORG}/swe-spoiled")
    assert "SWE-bench style" in env and "not a readable parquet file" not in env
    assert env.count('class="task-row') == ROWS
    for i in (0, GROUP + 1, ROWS - 1):  # both row groups
        html = page(wide_app, f"/t/{ORG}/swe-spoiled/test/{i}")
        assert f"Issue {i}: the parser drops the last line" in html and "Could not read this row" not in html


def test_an_unread_column_is_still_named_as_withheld_with_its_reason(wide_app):
    html = page(wide_app, f"/t/{ORG}/swe-spoiled/test/3")
    assert "<code>patch</code>" in html and "the gold fix the grader" in html
    assert "<code>FAIL_TO_PASS</code>" in html  # small withheld columns are read, and withheld as before
    assert "ZX-PATCH" not in html and "test_last_line" not in html


def test_the_same_rows_read_whole_show_the_same_task(wide_app):
    whole = page(wide_app, f"/t/{ORG}/swe-whole/test/7")
    spoiled = page(wide_app, f"/t/{ORG}/swe-spoiled/test/7")
    names = lambda html: re.findall(r"<code>([A-Za-z_]+)</code>", html)  # noqa: E731 - fields named on the page
    assert names(whole) == names(spoiled) and "patch" in names(whole)
    assert "Issue 7: the parser drops the last line" in whole and "ZX-PATCH" not in whole


def test_a_long_column_is_read_when_the_row_decides_what_is_shown(wide_app):
    html = page(wide_app, f"/t/{ORG}/long-notes/test/4")
    assert "Note 4 says: ever onward" in html and "Could not read this row" not in html


def test_a_page_reads_its_row_from_the_small_group_copy(wide_app):
    html = page(wide_app, f"/t/{ORG}/swe-copied/test/9")
    assert "Issue 9: the parser drops the last line" in html and "Could not read this row" not in html
    assert "<code>patch</code>" in html and "ZX-PATCH" not in html


def test_the_copy_holds_no_cell_of_the_columns_left_unread(wide_app):
    store = wide_app.extensions["rlx.store"]
    copies = list(store.rows_cache_dir(f"{ORG}/swe-copied", f"{len('swe-copied'):040x}").rglob("*.parquet"))
    assert len(copies) == 1
    table = pq.read_table(copies[0])
    assert table.num_rows == ROWS and pq.ParquetFile(copies[0]).metadata.num_row_groups == ROWS
    assert table.column("patch").null_count == ROWS and table.column("test_patch").null_count == 0


def test_without_its_copy_a_page_reads_the_file_itself(wide_app):
    store = wide_app.extensions["rlx.store"]
    for copy in store.rows_cache_dir(f"{ORG}/swe-copied", f"{len('swe-copied'):040x}").rglob("*.parquet"):
        copy.unlink()
    html = page(wide_app, f"/t/{ORG}/swe-copied/test/9")
    assert "Could not read this row" in html and "not a readable parquet file" in html  # the spoiled original
