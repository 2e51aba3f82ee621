"""The home page's first response stays within 10 KB on the wire (headers included) and still leads to every card
of its page: it draws the first 12, and the rest arrive when their place scrolls into view, or, with JavaScript
off, behind a link to the whole page. A catalog of 30 environments with cards of real length: 24 on page 1."""

from __future__ import annotations

import gzip
import json
import random
import re

import pytest

from rlx import create_app
from scripts import synth_catalog as synth
from tests.servers import chromium, needs_chromium, serve_from

ENVS = [f"gym-org/{word}-tasks-{n:02d}" for n, word in enumerate(
    ("terminal", "python", "sql", "shell", "regex", "chess", "git", "docker", "math", "csv") * 3)]
FIRST_RESPONSE_BUDGET = 10_000  # bytes on the wire, headers included (benchmarks/first_paint.py's target)
CARD = re.compile(r'<li class="card kind-[^"]*"[^>]*>\s*<a class="card-link" href="/d/([^"]+)"')
LATER = re.compile(r'<li id="later_cards"[^>]*hx-get="([^"]+)"[^>]*>\s*<a id="later" href="([^"]+)">([^<]+)</a>')


@pytest.fixture
def thirty(make_config, redis_client, tmp_path):
    """30 Harbor datasets whose cards read like the benchmark's (scripts/synth_catalog.py: Zipf-drawn words, three
    tags, likes and downloads): text that compresses as real cards do, not one sentence thirty times."""
    words = synth.ZipfPicker(synth.build_vocabulary(random.Random(synth.SEED)))
    rng = random.Random(30)
    for n, repo_id in enumerate(ENVS):
        folder = tmp_path / "source" / "datasets" / repo_id
        folder.mkdir(parents=True)
        title = synth.sentence(rng, words, 2, 4).rstrip(".").title()
        tags = ", ".join(["harbor", *rng.sample(synth.ENV_TAGS, 3)])
        (folder / "README.md").write_text(f"---\npretty_name: {json.dumps(title)}\ntags: [{tags}]\n---\n# {title}\n\n"
                                          f"{synth.sentence(rng, words, 25, 45)}\n")
        (folder / ".hub.json").write_text(json.dumps({"likes": rng.randint(0, 900), "downloads": rng.randint(0, 60_000),
                                                      "trendingScore": 300 - n,
                                                      "lastModified": "2026-11-20T10:00:00.000Z"}))
    return create_app(make_config(RLX_SOURCE=str(tmp_path / "source"))).test_client()


def _wire_bytes(response) -> int:
    status_line = len("HTTP/1.1 200 OK\r\n")
    headers = sum(len(k) + len(v) + 4 for k, v in response.headers.items()) + len("Server: gunicorn\r\n\r\n")
    return status_line + headers + len(response.get_data())


def _cards(html: str) -> list[str]:
    return CARD.findall(html)


def test_the_first_response_fits_in_10_kb_on_the_wire_and_draws_the_first_12_cards(thirty):
    response = thirty.get("/", headers={"Accept-Encoding": "gzip"})
    assert response.status_code == 200 and response.headers["Content-Encoding"] == "gzip"
    assert _wire_bytes(response) <= FIRST_RESPONSE_BUDGET
    html = gzip.decompress(response.get_data()).decode()
    results = html.split('id="results"', 1)[1]
    assert len(_cards(results)) == 12
    later = LATER.search(results)
    assert later and later.group(3) == "Show 12 more environments"


def test_every_card_of_every_page_is_reached_once(thirty):
    seen = []
    for page in ("/", "/?page=2"):
        results = thirty.get(page).get_data(as_text=True).split('id="results"', 1)[1]
        seen += _cards(results)
        later = LATER.search(results)
        if later:  # what htmx asks for when the placeholder scrolls into view
            rest = thirty.get(later.group(1).replace("&amp;", "&"),
                              headers={"HX-Request": "true", "HX-Target": "later_cards"}).get_data(as_text=True)
            assert "<html" not in rest and "later_cards" not in rest  # the cards alone, no second placeholder
            seen += _cards(rest)
    assert sorted(seen) == sorted(ENVS)  # all 30, none twice: page 1 is 12 + 12, page 2 the last 6


def test_with_javascript_off_the_link_opens_the_whole_page_at_the_13th_card(thirty):
    first = thirty.get("/").get_data(as_text=True)
    link = LATER.search(first).group(2).replace("&amp;", "&")
    path, anchor = link.split("#")
    whole = thirty.get(path).get_data(as_text=True)
    assert whole.startswith("<!doctype html>")
    results = whole.split('id="results"', 1)[1]
    cards = _cards(results)
    assert len(cards) == 24 and not LATER.search(results)
    assert cards[:12] == _cards(first.split('id="results"', 1)[1])
    assert re.search(rf'<a class="card-link" href="/d/{cards[12]}" id="{anchor}">', results)


def test_a_search_htmx_swaps_in_draws_all_its_cards_at_once(thirty):
    swapped = thirty.get("/?q=tasks", headers={"HX-Request": "true", "HX-Target": "results"}).get_data(as_text=True)
    assert len(_cards(swapped)) == 24 and "later_cards" not in swapped


@needs_chromium
def test_the_later_cards_arrive_when_their_place_comes_into_view_and_the_focus_moves_onto_them(thirty):
    asked = []
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 390, "height": 800})
        context.route("**/*", serve_from(thirty, htmx=True))
        page = context.new_page()
        page.on("request", lambda r: asked.append(r.url) if "cards=all" in r.url else None)
        page.goto("http://explorer.test/")
        page.wait_for_function("() => window.htmx")
        assert page.locator("#results .card").count() == 12 and asked == []  # nothing fetched below the fold
        page.focus("#later")  # a keyboard user tabbing onto the placeholder: it scrolls into view and loads
        page.wait_for_function("() => document.querySelectorAll('#results .card').length === 24")
        assert len(asked) == 1 and page.locator("#later_cards").count() == 0
        thirteenth = page.locator("#results .card").nth(12).locator("a.card-link")
        assert thirteenth.evaluate("link => link === document.activeElement")  # the focus is not lost
        context.close()
