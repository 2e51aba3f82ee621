"""The MiMo release as a visitor sees it: known by its layout, its domains as tiles, facets and a treemap, each
domain's task showing what matters for it, a general task's systems, databases, workspace and rubric, the link
to its Harbor conversion both ways, and no answer on any page, file or JSON answer."""

import re
import shutil
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import pytest

from tests.conftest import EXAMPLES, index_now

SECRET = re.compile(r"ZX-ANSWER-\d{4}")
RELEASE = "rlx-examples/mimo-release"
TWIN = "rlx-examples/mimo-release-harbor"


@pytest.fixture
def mimo_app(app):
    index_now(app, RELEASE)
    index_now(app, TWIN)
    return app


@pytest.fixture
def mimo_client(mimo_app):
    return mimo_app.test_client()


def adapter_for(tmp_path, make_config, copies: dict[str, str], tags=None):
    """The adapter chosen for copies of example folders (source id -> new id) under a fresh folder source."""
    from rlx import create_app
    from rlx.adapters import Env, pick

    root = tmp_path / "source"
    for source_id, new_id in copies.items():
        shutil.copytree(EXAMPLES / "datasets" / source_id, root / "datasets" / new_id)
        if tags is not None:
            card = (root / "datasets" / new_id / "README.md").read_text()
            head, body = card.split("tags:\n", 1)
            rest = body[body.index("task_categories:"):]
            (root / "datasets" / new_id / "README.md").write_text(head + "tags:\n" + "".join(
                f"- {t}\n" for t in tags) + rest)
    app = create_app(make_config(RLX_SOURCE=str(root)))
    with app.app_context():
        source, store = app.extensions["rlx.source"], app.extensions["rlx.store"]
        return {new_id: pick(Env(source.repo_info("dataset", new_id), source, store)).key for new_id in copies.values()}


def test_the_release_is_known_by_its_layout_not_its_name(tmp_path, make_config):
    chosen = adapter_for(tmp_path, make_config, {RELEASE: "someone/renamed-rl-release",
                                                 "rlx-examples/mimo-sample": "someone/mimo-named-rows"},
                         tags=["rl-environment", "agents"])
    assert chosen["someone/renamed-rl-release"] == "mimo"  # no "mimo" in its name or tags: the files decide
    assert chosen["someone/mimo-named-rows"] == "rows"  # named mimo, not laid out like the release


def test_the_environment_page_shows_domain_tiles_a_treemap_and_the_reward_design(mimo_client):
    html = mimo_client.get(f"/d/{RELEASE}").get_data(as_text=True)
    for tile in ("All domains · 10", "Code · 2", "Cyber · 2", "Webdev · 2", "Music · 2", "General · 2"):
        assert tile in html
    assert "Graded by hidden unit tests" in html and "Graded by a vision judge on a render" in html
    assert html.count('class="treemap-cell"') == 5 and "<script" not in html.split('class="treemap"')[1][:3000]
    design = html[html.index("How each domain is graded"):]
    assert "Σ weight × score" in design and "vision model" in design and "Not scored when" in design
    assert "Checks by method" in design and "llm_judge" in design


def test_each_domain_has_its_own_facets(mimo_client):
    cyber = mimo_client.get(f"/d/{RELEASE}?f=domain:Cyber").get_data(as_text=True)
    assert cyber.count('class="task-row') == 2
    assert "AddressSanitizer" in cyber and "heap-buffer-overflow" in cyber
    music = mimo_client.get(f"/d/{RELEASE}?f=domain:Music").get_data(as_text=True)
    assert music.count('class="task-row') == 2 and "3/4" in music and "fast (&gt;120 BPM)" in music


@pytest.mark.parametrize("ref, shown", [
    ("code/train/0", ["python -m pytest -q tests/test_retry.py", "format-code-task-000101:latest", "/testbed",
                      "Files the hidden tests touch", "tests/test_retry.py", "900"]),
    ("cyber/train/0", ["heap-buffer-overflow in function `png_read_row` in file `pngread.c`", "pngread.c",
                       "proof of concept", "arvo-v1-41001"]),
    ("webdev/train/0", ["harbour-side bakery", "vision", "webdev-rl-opensource:v2"]),
    ("music/train/0", ["The musical parameters", "129", "4/4", "56", "英式乡村舞曲"]),
])
def test_each_domain_task_shows_the_exact_prompt_and_what_matters_for_it(mimo_client, ref, shown):
    page = mimo_client.get(f"/t/{RELEASE}/{ref}")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "The agent&#39;s exact prompt" in html
    for text in shown:
        assert text.replace("`", "").replace("&", "&amp;") in html.replace("<code>", "").replace("</code>", ""), text
    assert not SECRET.search(html)


def test_a_general_task_shows_its_systems_databases_workspace_and_rubric(mimo_client):
    html = mimo_client.get(f"/t/{RELEASE}/general/train/0").get_data(as_text=True)
    assert "ledger (tools/ledger_server.py, 3 tools)" in html
    assert "list_invoices(customer: str | None=None, status: str=&#39;open&#39;, limit: int=50)" in html
    assert "invoices" in html and "5 rows · columns: id, customer_id, issued, amount" in html
    assert "Does unpaid.md list every invoice without a matching payment?" in html
    assert "critical · llm_judge · weight 3" in html and "Judge prompt" in html
    assert "verifier_meta.json items[0].pass_anchor" in html  # named as withheld, never shown
    assert "xiaomimimo/mimo-v2.6-rl-oss:general-accounting" in html
    note = mimo_client.get(f"/t/{RELEASE}/general/train/0?f=workspace/controller_notes.md").get_data(as_text=True)
    assert "Partial payments count as unpaid" in note
    meta = mimo_client.get(f"/t/{RELEASE}/general/train/0?f=verifier_meta.json&view=full").get_data(as_text=True)
    assert "Are the unpaid totals grouped by customer" in meta and "pass_anchor" not in meta
    missing = mimo_client.get(f"/t/{RELEASE}/general/train/1").get_data(as_text=True)
    assert "has no folder general/envs/s3k_1002_legal_zh_t2_rl_1/" in missing


def test_the_raw_row_and_its_harbor_conversion_link_to_each_other(mimo_client):
    raw = mimo_client.get(f"/t/{RELEASE}/code/train/0").get_data(as_text=True)
    assert f'href="/t/{TWIN}/code-000101"' in raw
    converted = mimo_client.get(f"/t/{TWIN}/code-000101").get_data(as_text=True)
    assert f'href="/t/{RELEASE}/code/train/0"' in converted
    assert mimo_client.get(f"/api/task/{RELEASE}/music/train/1").get_json()["aliases"] == [
        {"env": TWIN, "ref": "music-gk-0812"}]
    assert mimo_client.get(f"/api/task/{TWIN}/music-gk-0812").get_json()["aliases"] == [
        {"env": RELEASE, "ref": "music/train/1"}]
    assert mimo_client.get(f"/api/task/{RELEASE}/code/train/1").get_json()["aliases"] == []
    env_page = mimo_client.get(f"/d/{RELEASE}").get_data(as_text=True)
    assert f'href="/d/{TWIN}"' in env_page


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self.hrefs += [v for k, v in attrs if k == "href" and v]


def test_no_page_file_or_json_of_the_release_or_its_conversion_shows_an_answer(mimo_client):
    """Crawl every link from both environment pages (tasks, filters, files, full views), plus the JSON API."""
    starts = [f"/d/{RELEASE}", f"/d/{TWIN}"]
    seen, queue, fetched = set(), list(starts), 0
    while queue and fetched < 600:
        url = queue.pop(0)
        if url in seen:
            continue
        seen.add(url)
        page = mimo_client.get(url)
        fetched += 1
        body = page.get_data(as_text=True)
        assert page.status_code in (200, 303), url
        assert not SECRET.search(body), url
        parser = _Links()
        parser.feed(body)
        for href in parser.hrefs:
            full = urlsplit(urljoin("http://x" + url, href))
            link = full.path + (f"?{full.query}" if full.query else "")
            if full.netloc == "x" and full.path.startswith((f"/d/{RELEASE}", f"/t/{RELEASE}", f"/d/{TWIN}",
                                                             f"/t/{TWIN}")) and "/reindex" not in full.path:
                queue.append(link)
                if "?f=" in link and "/t/" in link:
                    queue.append(link + "&view=full")
    task_pages = [u for u in seen if u.startswith(f"/t/{RELEASE}/") and "?" not in u]
    files = [u for u in seen if "?f=" in u and "/t/" in u]
    assert len(task_pages) == 10 and len(files) >= 5  # every task and every file of the general task was read
    for url in [f"/api/env/{RELEASE}", f"/api/env/{TWIN}", *(u.replace("/t/", "/api/task/", 1) for u in seen
                                                          if u.startswith("/t/") and "?" not in u)]:
        assert not SECRET.search(mimo_client.get(url).get_data(as_text=True)), url


def test_the_snapshot_and_task_search_hold_the_release_without_answers(mimo_app, tmp_path):
    import sqlite3

    from rlx.catalog import fetch_listing
    from rlx.snapshot.build import build_snapshot
    from rlx.snapshot.row_sources import StoredIndexes

    client = mimo_app.test_client()
    found = client.get("/api/search/tasks?q=ledger").get_json()
    assert ("rlx-examples/mimo-release", "general/train/0") in {(t["env_id"], t["ref"]) for t in found["tasks"]}
    assert client.get("/api/search/tasks?q=ZX-ANSWER").get_json()["total"] == 0
    store, source = mimo_app.extensions["rlx.store"], mimo_app.extensions["rlx.source"]
    build_snapshot(fetch_listing(source), StoredIndexes(store), tmp_path / "catalog.db")
    db = sqlite3.connect(tmp_path / "catalog.db")
    assert db.execute("SELECT kind, task_count FROM envs WHERE id = ?", (RELEASE,)).fetchone() == ("other", 10)
    everything = "\n".join(str(row) for table in ("tasks", "envs", "env_splits")
                           for row in db.execute(f"SELECT * FROM {table}"))
    assert "Reconcile the Q3 ledger" in everything and not SECRET.search(everything)
