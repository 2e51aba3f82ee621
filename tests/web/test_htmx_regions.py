"""htmx the way the ecosystem does it: which request gets a fragment, the Kind chips that follow the results,
the one pager, and a folder link that still opens a whole page with JS off."""

import re

import pytest

RESULTS = {"HX-Request": "true", "HX-Target": "results"}
FOLDER = "/t/rlx-examples/python-bugfix/parse-duration/folder?p=environment"


def _oob_counts(html: str) -> dict[str, int]:
    return {key: int(n.replace(",", "")) for key, n in
            re.findall(r'<span class="count" id="kind-n-([\w-]+)" hx-swap-oob="true">([\d,]+)</span>', html)}


def _chip_counts(html: str) -> dict[str, int]:
    return {key: int(n.replace(",", "")) for key, n in
            re.findall(r'<span class="count" id="kind-n-([\w-]+)">([\d,]+)</span>', html)}


def test_typing_a_search_updates_the_kind_chips_out_of_band(client):
    before = _chip_counts(client.get("/").get_data(as_text=True))
    fragment = client.get("/?q=python&size=60", headers=RESULTS).get_data(as_text=True)
    after = _oob_counts(fragment)
    assert set(after) == set(before), "every chip on the page gets its new count"
    assert after != before and after["all"] < before["all"], "the counts follow the words typed"
    # Each count is what the cards in the same answer show: one card per environment, marked with its kind.
    cards = re.findall(r'<li class="card kind-([\w-]+)">', fragment)
    assert after["all"] == len(cards) > 0
    for key, n in after.items():
        if key != "all":
            assert n == cards.count(key), key


def test_the_full_page_holds_the_chips_once_and_no_out_of_band_copy(client):
    html = client.get("/?q=python").get_data(as_text=True)
    assert "hx-swap-oob" not in html
    assert html.count('id="kind-n-all"') == 1


def test_the_pager_links_each_page_once_and_swaps_only_the_results(client):
    html = client.get("/?size=2").get_data(as_text=True)
    nav = re.search(r'<nav class="pager" aria-label="Pages">(.*?)</nav>', html, re.S).group(1)
    assert "Previous" not in nav and re.search(r"Page 1 of \d+", nav)
    nxt = re.search(r'<a rel="next" href="([^"]+)" hx-get="([^"]+)" hx-target="#results" hx-push-url="true">', nav)
    assert nxt and nxt.group(1) == nxt.group(2) and "page=2" in nxt.group(1) and "size" not in nxt.group(1)
    second = client.get("/?page=2&size=2").get_data(as_text=True)
    prev = re.search(r'<a rel="prev" href="([^"]+)"', second).group(1)
    assert "page=" not in prev, "page 1 has one URL, without a page argument"


def test_a_folder_link_opened_without_htmx_is_a_whole_page(indexed_client):
    page = indexed_client.get(FOLDER)
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "<html" in html and "<header" in html
    assert 'href="/t/rlx-examples/python-bugfix/parse-duration"' in html, "a way back to the task"
    assert "Dockerfile" in html
    assert "HX-Request" in page.headers["Vary"]


def test_a_folder_link_htmx_loads_in_place_is_the_listing_alone(indexed_client):
    part = indexed_client.get(FOLDER, headers={"HX-Request": "true"})
    html = part.get_data(as_text=True)
    assert "<html" not in html and html.lstrip().startswith('<ul class="tree-children">')
    assert "Dockerfile" in html and "HX-Request" in part.headers["Vary"]


@pytest.mark.parametrize("extra", [{"HX-Boosted": "true"}, {"HX-History-Restore-Request": "true"}])
def test_a_boosted_or_restored_folder_is_a_whole_page(indexed_client, extra):
    assert "<html" in indexed_client.get(FOLDER, headers={"HX-Request": "true", **extra}).get_data(as_text=True)


def test_closing_the_banner_answers_htmx_and_a_plain_form_apart(client):
    origin = {"Origin": "http://localhost"}  # the test client's own origin
    plain = client.post("/banner/dismiss", data={"next": "/?q=x"}, headers=origin)
    assert plain.status_code == 303 and plain.headers["Location"].endswith("/?q=x")
    by_htmx = client.post("/banner/dismiss", data={"next": "/?q=x"}, headers={**origin, "HX-Request": "true"})
    assert by_htmx.status_code == 200 and "Location" not in by_htmx.headers
    assert "HX-Request" in plain.headers["Vary"] and "HX-Request" in by_htmx.headers["Vary"]
