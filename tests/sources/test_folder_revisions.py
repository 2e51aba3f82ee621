"""A folder's revision is its fingerprint: taken when a revision is given out, never for a read, and new after an edit.

Reading a 30,000-file repository used to walk all of it for every file read (0.8 s a read). These tests count the
folder listings (os.scandir calls) a read makes, and drive the source's clock instead of waiting.
"""

import os
import shutil

import pytest

from rlx.sources import EntryNotFound
from rlx.sources.folder import REVISION_FRESH_S, FolderSource
from tests.conftest import EXAMPLES

REPO = "rlx-examples/terminal-basics"  # its .hub.json states no sha: the fingerprint is its revision
TOML = "tasks/csv-sales-rollup/task.toml"


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now

    def pass_the_fresh_window(self):
        self.now += REVISION_FRESH_S + 0.1


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "source"
    shutil.copytree(EXAMPLES / "datasets" / REPO, root / "datasets" / REPO)
    return root


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def source(folder, clock):
    return FolderSource(folder, clock=clock)


@pytest.fixture
def listings(monkeypatch):
    """How many folders were listed (os.scandir calls) since the test began."""
    calls = []
    real = os.scandir

    def counting(path="."):
        calls.append(path)
        return real(path)

    monkeypatch.setattr(os, "scandir", counting)
    return calls


def repo_dir(folder):
    return folder / "datasets" / REPO


def walks(listings, source):
    """Fingerprints taken: each lists the repository's own folder once (a read lists nothing at all)."""
    return sum(str(p) == str(repo_dir(source.root)) for p in listings)


def every_file(folder):
    base = repo_dir(folder)
    return sorted(str(p.relative_to(base)) for p in base.rglob("*") if p.is_file() and p.name != ".hub.json")


def test_reads_at_the_given_revision_never_walk_the_folder(folder, source, listings):
    sha = source.repo_info("dataset", REPO).sha
    assert listings, "the revision was not computed from the folder"
    paths = every_file(folder)
    listings.clear()
    for _ in range(5):
        for path in paths:
            assert source.read_file("dataset", REPO, path, revision=sha) == (repo_dir(folder) / path).read_bytes()
        assert len(source.paths_info("dataset", REPO, paths, revision=sha)) == len(paths)
    assert listings == []


def test_a_revision_is_reused_briefly_then_looked_at_again(source, clock, listings):
    first = source.repo_info("dataset", REPO).sha
    listings.clear()
    assert source.repo_info("dataset", REPO).sha == first
    assert [r.sha for r in source.list_repos("dataset", ["harbor"])] == [first]
    assert walks(listings, source) == 0
    clock.pass_the_fresh_window()
    assert source.repo_info("dataset", REPO).sha == first  # looked at again: nothing changed
    assert walks(listings, source) == 1


def edit_in_place(base):
    """An editor saving over the file (no rename, same size): only the file's mtime says it changed."""
    target = base / TOML
    before = target.stat()
    text = target.read_text()
    target.write_text(text.replace("easy", "hard") if "easy" in text else text.replace("hard", "easy"))
    assert target.stat().st_size == before.st_size
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns + 2_000_000_000))


EDITS = {
    "a file saved in place": edit_in_place,
    "a line appended": lambda base: (base / TOML).write_text((base / TOML).read_text() + "\n# edited\n"),
    "a new file": lambda base: (base / "tasks/csv-sales-rollup/notes.md").write_text("new"),
    "a file removed": lambda base: (base / "README.md").unlink(),
    "a file renamed": lambda base: (base / "README.md").rename(base / "README.txt"),
    "a new task folder": lambda base: shutil.copytree(base / "tasks/csv-sales-rollup", base / "tasks/copied-task"),
}


@pytest.mark.parametrize("edit", EDITS.values(), ids=EDITS.keys())
def test_an_edited_folder_gets_a_new_revision_and_the_old_one_is_gone(folder, source, clock, edit):
    old = source.repo_info("dataset", REPO).sha
    assert source.read_file("dataset", REPO, TOML, revision=old)
    edit(repo_dir(folder))
    clock.pass_the_fresh_window()
    new = source.repo_info("dataset", REPO).sha
    assert new != old
    assert source.read_file("dataset", REPO, TOML, revision=new) == (repo_dir(folder) / TOML).read_bytes()
    with pytest.raises(EntryNotFound, match="no revision"):
        source.read_file("dataset", REPO, TOML, revision=old)


def test_a_fresh_source_reading_at_the_current_revision_fingerprints_once(folder, clock, listings):
    """A process that did not give out the revision (another worker's, say) checks it once, then reads freely."""
    sha = FolderSource(folder, clock=clock).repo_info("dataset", REPO).sha
    other = FolderSource(folder, clock=clock)
    listings.clear()
    for _ in range(20):
        assert other.read_file("dataset", REPO, TOML, revision=sha)
    assert walks(listings, other) == 1


def test_reads_at_an_unknown_revision_walk_at_most_once_per_window(source, clock, listings):
    source.repo_info("dataset", REPO)
    for _ in range(2):
        clock.pass_the_fresh_window()
        listings.clear()
        for _ in range(20):
            with pytest.raises(EntryNotFound, match="no revision"):
                source.read_file("dataset", REPO, TOML, revision="deadbeef" * 5)
        assert walks(listings, source) == 1
