"""The search API and the home page over the snapshot, with the admin's settings applied per query."""

import json
import re
import unicodedata

import pytest


INJECTIONS = ['"', "NEAR(a b)", "a*", "title:x", "AND", "OR NOT", "'; DROP TABLE envs; --", "\x00", "c++", "日本語",
              "%", "_", "\\", 'a" OR "b', "{key heading}:x", "^bug", "-x", "(", "terminal OR"]


@pytest.fixture
def catalog_app(indexed_app):
    return indexed_app


@pytest.fixture
def api(indexed_client):
    return indexed_client


def folded_words(text):
    plain = "".join(c for c in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(c))
    return re.findall(r"[^\W_]+", plain)


def word_match(query, text):
    """The meaning of a search word, written out independently: it begins a word of the text (one character: is
    one)."""
    words = folded_words(text)
    return all(any(w == t if len(t) == 1 else w.startswith(t) for w in words) for t in folded_words(query))


def write_settings(app, **settings):
    path = app.extensions["rlx.store"].settings_path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings))


def ids(body):
    return [card["id"] for card in body["cards"]]


def test_search_answers_cards_total_and_facet_counts(api):
    body = api.get("/api/search").get_json()
    assert body["total"] == len(body["cards"]) >= 4
    kinds = dict(body["facets"]["kind"])
    assert kinds["harbor"] == 4 and kinds["openenv"] == 1  # with the MiMo release's Harbor conversion
    harbor = api.get("/api/search?kind=harbor").get_json()
    assert harbor["total"] == 4 and all(c["kind"] == "harbor" for c in harbor["cards"])
    assert dict(harbor["facets"]["kind"]) == kinds  # the kind facet is counted without the kind filter


def test_trending_adds_the_row_and_the_numbers_in_the_same_response(api):
    body = api.get("/api/search?trending=24").get_json()
    assert [c["id"] for c in body["trending"]][:3] == ["rlx-examples/python-bugfix", "space:rlx-examples/echo-env",
                                                       "rlx-examples/terminal-basics"]
    assert body["numbers"]["tasks"] == 16 and body["numbers"]["spaces"] == 1


def test_a_tag_filter_and_each_sort_answer(api):
    tagged = api.get("/api/search?f=tag:science").get_json()
    assert ids(tagged) == ["rlx-examples/science-puzzles"]
    for sort in ("trending", "downloads", "likes", "modified", "created", "tasks"):
        assert api.get(f"/api/search?sort={sort}").status_code == 200
    likes = api.get("/api/search?sort=likes").get_json()
    counts = [c["likes"] for c in likes["cards"]]
    assert counts == sorted(counts, reverse=True)


@pytest.mark.parametrize("query", INJECTIONS)
def test_search_words_are_data_whatever_they_contain(api, query):
    response = api.get("/api/search", query_string={"q": query})
    assert response.status_code == 200
    everything = api.get("/api/search?size=100").get_json()["cards"]
    expected = {c["id"] for c in everything
                if word_match(query, " ".join([c["heading"], c["brief"], c["key"], *c["tags"]]))}
    assert set(ids(response.get_json())) == expected


@pytest.mark.parametrize("args", ["kind=nope", "sort=rowid", "f=license:mit", "page=x", "size=1000",
                                  "collection=nope"])
def test_bad_arguments_get_a_400_with_a_sentence(api, args):
    response = api.get(f"/api/search?{args}")
    assert response.status_code == 400
    assert response.get_json()["error"].endswith(".")


def test_answers_are_cacheable_and_a_repeat_is_a_304(api):
    first = api.get("/api/search?q=harbor")
    assert first.headers["Cache-Control"].startswith("public, max-age=30")
    assert first.headers["ETag"].startswith('W/"') and first.headers["Server-Timing"].startswith("db;dur=")
    again = api.get("/api/search?q=harbor", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    other = api.get("/api/search?q=terminal")
    assert other.headers["ETag"] != first.headers["ETag"]


def test_admin_settings_apply_at_once_without_a_new_snapshot(catalog_app, api):
    before = api.get("/api/search").get_json()
    write_settings(catalog_app, hidden=["rlx-examples/terminal-basics"], pinned=["rlx-examples/science-puzzles"],
                   collections={"mine": {"title": "Mine", "items": ["rlx-examples/python-bugfix"]}})
    after = api.get("/api/search").get_json()
    assert "rlx-examples/terminal-basics" in ids(before) and "rlx-examples/terminal-basics" not in ids(after)
    assert after["total"] == before["total"] - 1
    assert ids(after)[0] == "rlx-examples/science-puzzles"  # pinned first in trending
    assert ids(api.get("/api/search?collection=mine").get_json()) == ["rlx-examples/python-bugfix"]
    home = api.get("/").get_data(as_text=True)
    assert "rlx-examples/terminal-basics" not in home.split('id="results"')[1]
    assert ">Mine <" in home


def test_a_broken_settings_file_keeps_the_last_good_settings(catalog_app, api):
    write_settings(catalog_app, hidden=["rlx-examples/terminal-basics"])
    assert "rlx-examples/terminal-basics" not in ids(api.get("/api/search").get_json())
    catalog_app.extensions["rlx.store"].settings_path.write_text("{not json")
    assert "rlx-examples/terminal-basics" not in ids(api.get("/api/search").get_json())


def test_task_search_rank_and_status(api):
    tasks = api.get("/api/search/tasks?q=csv").get_json()
    assert tasks["total"] >= 1 and any(t["ref"] == "csv-sales-rollup" for t in tasks["tasks"])
    scoped = api.get("/api/search/tasks?env=rlx-examples/science-puzzles").get_json()
    assert scoped["total"] == 5
    rank = api.get("/api/search/rank?key=rlx-examples/terminal-basics").get_json()
    assert rank["n"] == 2 and rank["of"] == 4  # second trending Harbor dataset of four
    assert api.get("/api/search/rank?key=nope/nope").status_code == 404
    status = api.get("/api/search/status").get_json()
    assert status["snapshot"] and status["last_checked"]


def test_the_home_page_first_response_holds_the_first_page_of_cards(api):
    html = api.get("/").get_data(as_text=True)
    assert html.count('class="card kind-') >= 8  # trending row and the first page of results
    assert "<style nonce=" in html and 'rel="stylesheet"' not in html  # drawable from this one response
    assert re.search(r"\d+</strong> indexed tasks", html)


def test_the_home_page_counts_read_as_english(api):
    html = api.get("/").get_data(as_text=True)
    assert "<strong>1</strong> Space</span>" in html  # the bundled catalog has one Space app: not "1 Spaces"
    assert re.search(r"<strong>(1\d|[2-9]\d*)</strong> datasets</span>", html)


def test_the_banner_closes_for_a_week_and_cross_site_posts_are_refused(catalog_app, api):
    write_settings(catalog_app, banner={"text": "Hello explorers", "href": "https://example.org", "id": "b1"})
    assert "Hello explorers" in api.get("/").get_data(as_text=True)
    refused = api.post("/banner/dismiss", data={"next": "/"}, headers={"Origin": "https://evil.example"})
    assert refused.status_code == 403
    closed = api.post("/banner/dismiss", data={"next": "//evil.example/x"},
                      headers={"Sec-Fetch-Site": "same-origin", "Origin": "http://localhost"})
    assert closed.status_code == 303 and closed.headers["Location"] == "/"
    assert "Max-Age=604800" in closed.headers["Set-Cookie"]
    assert "Hello explorers" not in api.get("/").get_data(as_text=True)


def test_a_javascript_banner_link_is_dropped(catalog_app, api):
    write_settings(catalog_app, banner={"text": "Click me", "href": "javascript:alert(1)"})
    html = api.get("/").get_data(as_text=True)
    assert "Click me" in html and "javascript:" not in html


def test_a_stand_in_hub_listing_produces_the_snapshot_the_home_page_and_the_api_serve(hub, make_config, redis_client):
    from rlx import create_app
    from rlx.snapshot.refresh import refresh_catalog
    from tests.stand_ins.hub_fixtures import OPENENV_SPACE, PRIVATE_HARBOR, PUBLIC_HARBOR

    app = create_app(make_config(RLX_SOURCE="hub", HF_ENDPOINT=hub.url))
    config = app.config["RLX"]
    summary = refresh_catalog(app.extensions["rlx.source"], app.extensions["rlx.store"], config.cache_dir,
                          max_builds=2)
    assert summary.get("refused") is None
    client = app.test_client()
    body = client.get("/api/search?size=100&trending=8").get_json()
    found = {card["id"] for card in body["cards"]}
    assert PUBLIC_HARBOR in found and f"space:{OPENENV_SPACE}" in found and PRIVATE_HARBOR not in found
    assert body["numbers"]["tasks"] >= 3  # the Harbor datasets indexed within the budget count their tasks
    home = client.get("/").get_data(as_text=True)
    assert PUBLIC_HARBOR in home and PRIVATE_HARBOR not in home
    assert client.get("/api/search/status").get_json()["origin"] == "pointer"


def test_a_search_also_lists_the_tasks_it_names(api):
    html = api.get("/?q=nginx").get_data(as_text=True)
    assert "matching “nginx”" in html and 'href="/t/rlx-examples/terminal-basics/nginx-log-summary"' in html


def test_a_visitor_who_arrives_with_a_search_sees_its_results_first_and_honest_counts(api):
    html = api.get("/?q=puzzles").get_data(as_text=True)
    assert "Trending</h2>" not in html
    all_chip = re.search(r'value="" checked> All <span class="count" id="kind-n-all">([\d,]+)</span>', html)
    assert all_chip and all_chip.group(1) == "1"  # the one environment the words match, not the whole catalog
    assert "Trending</h2>" in api.get("/").get_data(as_text=True)


@pytest.mark.parametrize("path, found_q, found_link", [
    ("/", "terminal -basics", 'href="/d/rlx-examples/terminal-basics"'),
    ("/d/rlx-examples/terminal-basics", "nginx -log", 'href="/t/rlx-examples/terminal-basics/nginx-log-summary"')])
def test_a_search_in_operator_syntax_that_finds_nothing_says_there_are_no_operators(api, path, found_q, found_link):
    hint = "Search has no operators"
    for q in ("qqqzz OR wwwxx", '"qqqzz wwwxx"', "qqqzz -wwwxx", "qqqzz NOT wwwxx"):
        html = api.get(path, query_string={"q": q}).get_data(as_text=True)
        assert "matches.</strong>" in html and hint in html, q
    plain = api.get(path, query_string={"q": "qqqzz wwwxx"}).get_data(as_text=True)
    assert "matches.</strong>" in plain and hint not in plain
    found = api.get(path, query_string={"q": found_q}).get_data(as_text=True)
    assert found_link in found and hint not in found  # said only when nothing was found


def test_card_links_follow_where_the_app_is_mounted_request_by_request(api):
    """Cards link to their pages under the app's mount point (SCRIPT_NAME), whichever mount answered first."""
    mounted = api.get("/api/search", environ_overrides={"SCRIPT_NAME": "/explore"}).get_json()
    plain = api.get("/api/search").get_json()
    again = api.get("/api/search", environ_overrides={"SCRIPT_NAME": "/explore"}).get_json()
    by_id = {card["id"]: card["url"] for card in plain["cards"]}
    assert by_id["rlx-examples/python-bugfix"] == "/d/rlx-examples/python-bugfix"
    assert by_id["space:rlx-examples/echo-env"] == "/s/rlx-examples/echo-env"
    for answer in (mounted, again):
        assert {card["id"]: card["url"] for card in answer["cards"]} == {
            env_id: "/explore" + url for env_id, url in by_id.items()}
