"""The home page inlines app.css alone (its first response stays small); every other page inlines pages.css too.
Nothing the home page draws may be styled only in pages.css, or it would show unstyled there. What is inlined
leaves the files' comments and spacing out, and keeps every rule."""

import re
from pathlib import Path

import pytest

CSS = Path(__file__).resolve().parents[2] / "rlx" / "static" / "css"
HOME = ["/", "/?q=csv", "/?kind=harbor", "/?f=tag:harbor&sort=likes", "/?q=zzzz-nothing-matches"]
INNER = ["/d/rlx-examples/terminal-basics", "/t/rlx-examples/terminal-basics/csv-sales-rollup",
         "/t/rlx-examples/terminal-basics/csv-sales-rollup?f=tests/test.sh", "/d/nobody/nothing-here"]


def _classes_styled(css: str) -> set[str]:
    return set(re.findall(r"\.([a-zA-Z][\w-]*)", re.sub(r"/\*.*?\*/", "", css, flags=re.S)))


def _style_element(html: str) -> str:
    return re.search(r"<style[^>]*>(.*?)</style>", html, re.S).group(1)


def _rules(css: str) -> list[str]:
    """Each rule's selector and declarations with all spacing taken out, in order: what a browser reads."""
    bare = re.sub(r"\s+", "", re.sub(r"/\*.*?\*/", "", css, flags=re.S)).replace(";}", "}")
    return re.findall(r"[^{}]+\{[^{}]*\}", bare)


def _inlines(html: str, *sheets: str) -> bool:
    inlined = _style_element(html)
    files = "".join((CSS / f"{sheet}.css").read_text() for sheet in sheets)
    return "/*" not in inlined and len(inlined) < len(files) and _rules(inlined) == _rules(files)


@pytest.mark.parametrize("url", HOME)
def test_the_home_page_styles_everything_it_draws_without_pages_css(indexed_client, url):
    response = indexed_client.get(url)
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    app_css, pages_css = (CSS / "app.css").read_text(), (CSS / "pages.css").read_text()
    assert _inlines(html, "app")
    drawn = {name for attr in re.findall(r'class="([^"]*)"', html) for name in attr.split()}
    only_in_pages = _classes_styled(pages_css) - _classes_styled(app_css)
    assert drawn & only_in_pages == set()


@pytest.mark.parametrize("url", INNER)
def test_every_other_page_inlines_both_stylesheets(indexed_client, url):
    html = indexed_client.get(url).get_data(as_text=True)
    assert _inlines(html, "app", "pages")
