"""A format registered from outside the package gets working pages, with no template of its own."""

import pytest

from rlx.adapters import Adapter, FileView, Index, Section, TaskRow, TaskView, register, unregister
from rlx.adapters import blocks as b
from rlx.adapters.indexes import save_index


class RiddleAdapter(Adapter):
    """A toy format: datasets tagged `riddles`, one task per line of riddles.txt."""

    key = "riddles"
    label = "Riddles"

    def score(self, record):
        return 1.0 if "riddles" in record.tags else 0.0

    def build_index(self, env, progress=None):
        lines = env.read_text("riddles.txt").splitlines()
        rows = [TaskRow(ref=f"r{i}", title=f"Riddle {i}", brief=line, facets={"length": "short" if len(line) < 40
                        else "long"}, extra={"_secret_line": i}) for i, line in enumerate(lines, 1)]
        index = Index(env_id=env.id, adapter=self.key, revision=env.revision, version=self.index_version,
                      built_at="2026-11-30T00:00:00+00:00", complete=True, rows=rows)
        save_index(env.store, index)
        return index

    def overview(self, env, index):
        return [Section("summary", "Riddles", [b.kv([("Riddles", len(index.rows))]),
                                               b.note("Answers are never shown.", "info")])]

    def task(self, env, index, ref):
        row = next((r for r in index.rows if r.ref == ref), None)
        if row is None:
            return None
        return TaskView(ref=ref, title=row.title, sections=[
            Section("task", "What the agent gets", [b.messages([{"role": "user", "content": row.brief}])]),
            Section("files", "Files", [b.files([{"path": "riddles.txt", "type": "file", "size": 1,
                                                  "withheld": None}])]),
        ], facts={"length": row.facets["length"]})

    def list_folder(self, env, index, ref, path):
        return [{"path": "riddles.txt", "type": "file", "size": 10, "withheld": None}] if path == "" else None

    def read_file(self, env, index, ref, path):
        return FileView(path=path, text=env.read_text(path)) if path == "riddles.txt" else None


@pytest.fixture
def riddle_client(make_config, redis_client, tmp_path):
    from rlx import create_app
    from tests.conftest import index_now

    repo = tmp_path / "src" / "datasets" / "toys" / "riddles"
    repo.mkdir(parents=True)
    (repo / "README.md").write_text("---\ntags: [riddles]\npretty_name: Toy riddles\n---\n")
    (repo / "riddles.txt").write_text("What has keys but no locks?\nWhat gets wetter the more it dries, "
                                      "and can be found in every kitchen?\n")
    register(RiddleAdapter())
    try:
        app = create_app(make_config(RLX_SOURCE=str(tmp_path / "src")))
        index_now(app, "toys/riddles")
        yield app.test_client()
    finally:
        unregister("riddles")


def test_a_toy_adapter_gets_an_environment_page(riddle_client):
    html = riddle_client.get("/d/toys/riddles").get_data(as_text=True)
    assert "Toy riddles" in html and "Riddles dataset" in html
    assert "Answers are never shown." in html and html.count('class="task-row') == 2
    assert "Length" in html  # its own facet, found in its rows


def test_a_toy_adapter_gets_a_task_page_and_a_file_view(riddle_client):
    html = riddle_client.get("/t/toys/riddles/r1").get_data(as_text=True)
    assert "What has keys but no locks?" in html and 'class="msg msg-user"' in html
    viewer = riddle_client.get("/t/toys/riddles/r1?f=riddles.txt").get_data(as_text=True)
    assert 'id="L2"' in viewer
    assert riddle_client.get("/t/toys/riddles/r1?f=other.txt").status_code == 404


def test_private_keys_never_leave_the_server(riddle_client):
    for url in ("/api/env/toys/riddles", "/api/task/toys/riddles/r1", "/d/toys/riddles", "/t/toys/riddles/r2"):
        assert "_secret_line" not in riddle_client.get(url).get_data(as_text=True)


def test_the_surest_confirming_adapter_wins(tmp_path):
    from rlx.adapters import Env, pick
    from rlx.sources.folder import FolderSource
    from rlx.store import Store

    for name, tags in (("riddles", "riddles"), ("other", "nothing")):
        (tmp_path / "datasets" / "toys" / name).mkdir(parents=True)
        (tmp_path / "datasets" / "toys" / name / "README.md").write_text(f"---\ntags: [{tags}]\n---\n")
    source = FolderSource(tmp_path)

    class Unsure(RiddleAdapter):
        key = "unsure"

        def score(self, record):
            return 0.5

        def confirm(self, env):
            return False

    register(Unsure())
    register(RiddleAdapter())
    try:
        riddles = Env(source.repo_info("dataset", "toys/riddles"), source, Store(tmp_path / "s"))
        assert pick(riddles).key == "riddles"
        # Neither the unsure adapter nor Harbor (no task.toml anywhere) confirms: no format claims it.
        other = Env(source.repo_info("dataset", "toys/other"), source, Store(tmp_path / "s"))
        assert pick(other) is None
    finally:
        unregister("unsure")
        unregister("riddles")


def test_every_block_has_a_plain_text_form_with_the_same_content(indexed_app):
    """MCP and the API give a task as plain text: every word of it must be on the task's page, and the page's
    instruction must be in it, so neither form can drop a block the other shows."""
    import html as html_lib
    import re

    from rlx.adapters import Env, choose
    from rlx.adapters.blocks import to_text
    from rlx.adapters.indexes import load_index

    with indexed_app.app_context():
        source, store = indexed_app.extensions["rlx.source"], indexed_app.extensions["rlx.store"]
        env = Env(source.repo_info("dataset", "rlx-examples/python-bugfix"), source, store)
        view = choose(env).task(env, load_index(store, env.id), "inventory-service")
    text = "\n\n".join(to_text(block) for section in view.sections for block in section.blocks)
    text = re.sub(r"(?m)^```\w*$", "", text)  # a code fence's language is the text form's markup, not content
    page = indexed_app.test_client().get("/t/rlx-examples/python-bugfix/inventory-service").get_data(as_text=True)
    page_text = html_lib.unescape(re.sub(r"<[^>]+>", " ", page))
    words = lambda s: set(re.findall(r"[A-Za-z0-9_]{3,}", s))  # noqa: E731
    missing = words(text) - words(page_text)
    assert not missing, f"in the text form but not on the page: {sorted(missing)[:20]}"
    for step in ("fix-tests", "restock-report"):  # a multi-step task: each step's instruction, whole
        instruction = source.read_file("dataset", env.id, f"inventory-service/steps/{step}/instruction.md").decode()
        assert words(instruction) <= words(text)
