"""FolderSource reads a folder laid out like the Hub, as the Hub would describe it."""

import pytest

from rlx.sources import EntryNotFound, RepoNotFound
from rlx.sources.folder import FolderSource
from tests.conftest import EXAMPLES


@pytest.fixture(scope="module")
def source():
    return FolderSource(EXAMPLES)


def test_listing_merges_tags_and_orders_by_trending(source):
    harbor = [r.id for r in source.list_repos("dataset", ["harbor"])]
    assert harbor == ["rlx-examples/python-bugfix", "rlx-examples/terminal-basics", "rlx-examples/science-puzzles",
                      "rlx-examples/mimo-release-harbor"]
    merged = {r.id for r in source.list_repos("dataset", ["harbor", "verl"])}
    assert merged == set(harbor) | {"rlx-examples/countdown-verl", "rlx-examples/mimo-sample"}
    spaces = {r.id: r for r in source.list_repos("space", ["openenv", "rl-environment"])}
    assert spaces["rlx-examples/echo-env"].sdk == "docker" and spaces["rlx-examples/echo-env"].stage == "SLEEPING"


def test_the_readme_front_matter_is_the_card_and_hub_json_the_counters(source):
    record = source.repo_info("dataset", "rlx-examples/terminal-basics")
    assert record.pretty_name == "Terminal Basics" and "harbor" in record.tags
    assert record.likes == 42 and record.trending_score == 12
    assert record.sha and len(record.sha) == 40


def test_a_repository_without_hub_json_lists_with_defaults(source):
    record = source.repo_info("dataset", "rlx-examples/math-word-problems")
    assert record.likes == 0 and record.downloads == 0 and not record.private
    assert record.last_modified  # the folder's own modification time


def test_trees_and_paths_info_answer_like_the_hub(source):
    top = {e.path: e.type for e in source.list_tree("dataset", "rlx-examples/science-puzzles")}
    assert top["tasks"] == "directory" and top["README.md"] == "file" and ".hub.json" not in top
    deep = [e.path for e in source.list_tree("dataset", "rlx-examples/science-puzzles", recursive=True)]
    assert "tasks/chemistry/molar-mass-table/task.toml" in deep
    found = source.paths_info("dataset", "rlx-examples/science-puzzles",
                              ["tasks/chemistry/molar-mass-table/task.toml", "tasks/nope/task.toml", "tasks"])
    assert [(e.path, e.type) for e in found] == [("tasks/chemistry/molar-mass-table/task.toml", "file"),
                                                 ("tasks", "directory")]


@pytest.mark.parametrize("path", ["../terminal-basics/README.md", "/etc/passwd", "tasks/../../x", ".hub.json",
                                  "a\\b", "x\x00"])
def test_no_path_leaves_the_repository(source, path):
    with pytest.raises(EntryNotFound):
        source.read_file("dataset", "rlx-examples/science-puzzles", path)


def test_unknown_repositories_and_revisions_are_not_found(source):
    with pytest.raises(RepoNotFound):
        source.repo_info("dataset", "rlx-examples/nope")
    with pytest.raises(RepoNotFound):
        source.repo_info("dataset", "../etc")
    with pytest.raises(EntryNotFound):
        source.read_file("dataset", "rlx-examples/science-puzzles", "README.md", revision="deadbeef")


def test_a_missing_repository_is_a_404_that_names_it_but_not_the_servers_folder(client):
    for path in ("/d/nobody/nothing", "/api/env/nobody/nothing", "/t/nobody/nothing/a-task"):
        response = client.get(path)
        text = response.get_data(as_text=True)
        assert response.status_code == 404 and "nobody/nothing" in text, path
        assert str(EXAMPLES) not in text, path


def test_an_edited_card_is_read_again_and_a_changed_record_changes_no_other(tmp_path):
    """Cards are parsed once per text in a process: an edit must still show, and a record's card stays its own."""
    repo = tmp_path / "datasets" / "someone" / "cards"
    repo.mkdir(parents=True)
    readme = repo / "README.md"
    readme.write_text("---\ntags: [harbor]\n---\n# Cards\n\nThe first paragraph is long enough to be the summary.\n")
    source = FolderSource(tmp_path)
    first = source.repo_info("dataset", "someone/cards")
    assert first.card["description"] == "The first paragraph is long enough to be the summary."
    first.card["description"] = "changed by a caller"
    first.card["tags"].append("changed")
    again = FolderSource(tmp_path).repo_info("dataset", "someone/cards")
    assert again.card["description"] == "The first paragraph is long enough to be the summary."
    assert again.card["tags"] == ["harbor"]
    readme.write_text("---\ntags: [harbor]\n---\n# Cards\n\nAnother opening paragraph, written after an edit.\n")
    edited = FolderSource(tmp_path).repo_info("dataset", "someone/cards")
    assert edited.card["description"] == "Another opening paragraph, written after an edit."
