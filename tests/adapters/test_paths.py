"""Task-relative paths from URLs and listings never leave their task."""

import os

import pytest

from rlx.adapters.paths import join_inside, safe_relpath


@pytest.mark.parametrize("raw, clean", [
    ("tests/test.sh", "tests/test.sh"),
    ("./tests//test.sh", "tests/test.sh"),
    ("environment/", "environment"),
    ("", ""),
    (".", ""),
    ("docs/a file with spaces.md", "docs/a file with spaces.md"),
    ("data/100%25 real.txt", "data/100%25 real.txt"),
    ("steps/one/instruction.md", "steps/one/instruction.md"),
    ("café/menu.txt", "café/menu.txt"),
])
def test_ordinary_paths_come_back_in_one_clean_form(raw, clean):
    assert safe_relpath(raw) == clean


@pytest.mark.parametrize("raw", [
    "../secret",
    "tests/../../etc/passwd",
    "tests/..",
    "..",
    "%2e%2e/etc/passwd",
    "tests/%2E%2E/%2e%2e/x",
    "%252e%252e/etc/passwd",
    "..%2fetc%2fpasswd",
    "/etc/passwd",
    "%2fetc/passwd",
    "\\\\server\\share",
    "tests\\..\\..\\x",
    "tests%5c..%5cx",
    "tests/test.sh\x00.txt",
    "tests/%00",
    "tests/\nx",
    "~/.ssh/id_rsa",
    "~root/x",
    "C:/Windows/system32",
    "c:secret",
    "a" * 5000,
])
def test_paths_that_could_leave_the_task_are_refused(raw):
    assert safe_relpath(raw) is None


def test_a_non_string_is_refused():
    assert safe_relpath(None) is None  # type: ignore[arg-type]


def test_join_inside_finds_a_file_in_the_task(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test.sh").write_text("exit 0")
    assert join_inside(tmp_path, "tests/test.sh") == (tmp_path / "tests" / "test.sh").resolve()
    assert join_inside(tmp_path, "") == tmp_path.resolve()


def test_join_inside_refuses_traversal_before_touching_the_disk(tmp_path):
    assert join_inside(tmp_path, "../outside.txt") is None
    assert join_inside(tmp_path, "/etc/passwd") is None


def test_a_symlink_pointing_out_of_the_task_is_refused(tmp_path):
    task, outside = tmp_path / "task", tmp_path / "outside"
    task.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("no")
    os.symlink(outside, task / "link")
    os.symlink(outside / "secret.txt", task / "file-link")
    assert join_inside(task, "link/secret.txt") is None
    assert join_inside(task, "file-link") is None


def test_a_symlink_that_stays_inside_the_task_is_followed(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "a.txt").write_text("yes")
    os.symlink(tmp_path / "real", tmp_path / "alias")
    assert join_inside(tmp_path, "alias/a.txt") == (tmp_path / "real" / "a.txt").resolve()


def test_two_repository_ids_never_share_a_stored_file(tmp_path):
    from rlx.store import Store, repo_id_of_key

    store = Store(tmp_path)
    assert store.index_path("a__b/c") != store.index_path("a/b__c")
    assert store.pack_path("a__b/c") != store.pack_path("a/b__c")
    for repo_id in ("a__b/c", "a/b__c", "org.x/name-1_2"):
        name = store.index_path(repo_id).name.removesuffix(".json.gz")
        assert repo_id_of_key(name) == repo_id
