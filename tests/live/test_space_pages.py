"""Every Space opens a page /s/<org>/<name>: its card, runtime, SDK, likes, files in the dataset file viewer, its
app embedded when it runs, and what its server offers; drawn with the datasets' blocks."""

from __future__ import annotations

import re

import pytest

from rlx import create_app
from tests.stand_ins.hub_fixtures import OPENENV_SPACE

EXAMPLE_SPACES = ("rlx-examples/echo-env", "rlx-examples/gridworld-demo")


@pytest.mark.parametrize("space_id", EXAMPLE_SPACES)
def test_every_example_space_opens_a_page(client, space_id):
    page = client.get(f"/s/{space_id}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert space_id in html and 'id="files"' in html and 'id="runtime"' in html


def test_the_echo_space_page_shows_its_card_runtime_and_files(client):
    html = client.get("/s/rlx-examples/echo-env").get_data(as_text=True)
    assert "<h1>" in html and "Echo Environment Server" in html
    assert "A minimal" in html and "<h2>Card</h2>" in html  # the README, rendered
    assert "Asleep" in html and "Wake it up" in html  # .hub.json says SLEEPING
    assert "docker" in html and "♥ 31" in html
    assert "Space (declares OpenEnv)</p>" in html and "verified" not in html  # no check yet: no claim either way
    assert "echo_env" in html and "server.app:app" in html  # what openenv.yaml declares
    assert 'href="/s/rlx-examples/echo-env?f=models.py#viewer"' in html
    assert "<iframe" not in html  # asleep: no app to embed


def test_a_space_file_opens_in_the_viewer_with_line_links(client):
    html = client.get("/s/rlx-examples/echo-env?f=server/app.py").get_data(as_text=True)
    assert 'id="L1"' in html and 'href="#L1"' in html and "create_app" in html
    assert "view=full" in html
    full = client.get("/s/rlx-examples/echo-env?f=server/app.py&view=full").get_data(as_text=True)
    assert 'id="L1"' in full and 'id="files"' not in full
    fragment = client.get("/s/rlx-examples/echo-env?f=models.py", headers={"HX-Request": "true", "HX-Target": "viewer"})
    assert "EchoAction" in fragment.get_data(as_text=True) and "<html" not in fragment.get_data(as_text=True)


@pytest.mark.parametrize("path", ["../../etc/passwd", "nope.py", "server", ".hub.json"])
def test_a_path_that_is_not_a_file_of_the_space_is_a_404(client, path):
    response = client.get("/s/rlx-examples/echo-env", query_string={"f": path})
    assert response.status_code == 404 and "has no file" in response.get_data(as_text=True)


def test_an_unknown_space_is_a_404_with_a_sentence(client):
    response = client.get("/s/rlx-examples/nope")
    text = response.get_data(as_text=True)
    assert response.status_code == 404 and "There is no space rlx-examples/nope in this catalog." in text
    assert client.get("/s/bad..name/x").status_code == 404


def test_every_space_card_in_the_catalog_links_to_its_page(client):
    body = client.get("/api/search?kind=openenv&kind=other").get_json()
    spaces = [c for c in body["cards"] if c["repo_type"] == "space"]
    assert spaces and all(c["url"] == f"/s/{c['key']}" for c in spaces)
    home = client.get("/").get_data(as_text=True)
    assert 'href="/s/rlx-examples/echo-env"' in home
    for card in spaces:
        assert client.get(card["url"]).status_code == 200


def test_a_running_hub_space_embeds_its_app_only_once_its_server_was_reached(hub, make_config, redis_client):
    import json
    import time

    from rlx.live import space_checks

    app = create_app(make_config(RLX_SOURCE="hub", HF_ENDPOINT=hub.url))
    client = app.test_client()
    html = client.get(f"/s/{OPENENV_SPACE}").get_data(as_text=True)
    assert "Running" in html and "cpu-basic" in html
    assert "<iframe" not in html  # never checked: no frame that may not load
    assert 'hx-get="/s/openenv/echo-env/live"' in html  # ...the page asks as it loads
    # Its *.hf.space host does not resolve here: one plain sentence, the runtime line agrees, no frame, no playground.
    live = client.get(f"/s/{OPENENV_SPACE}/live").get_data(as_text=True)
    assert "could not be reached: its address does not resolve from here." in live and "Errno" not in live
    assert "Listed as running" in live and "cannot be reached from here" in live and "<iframe" not in live
    page = client.get(f"/s/{OPENENV_SPACE}").get_data(as_text=True)
    assert "<iframe" not in page and "Open the playground" not in page and ">Running<" not in page
    # A check that reached it (as a real one stores it): its app is framed from its own host.
    redis_client.set(space_checks._key(OPENENV_SPACE), json.dumps({"ok": True, "openenv": True, "problems": {},
                                                             "checked_ts": time.time()}))
    html = client.get(f"/s/{OPENENV_SPACE}").get_data(as_text=True)
    frame = re.search(r'<iframe[^>]*src="([^"]+)"[^>]*sandbox="([^"]+)"', html)
    assert frame and frame.group(1) == "https://openenv-echo-env.hf.space/"
    assert "allow-top-navigation" not in frame.group(2)


def test_a_space_readme_is_rendered_safely(hub, make_config, redis_client):
    hub.add_repo("space", "acme/xss-env", {
        "README.md": "---\ntitle: X\nsdk: docker\ntags: [openenv]\n---\n# Hello\n<script>alert(1)</script>"
                     "<img src=x onerror=alert(2)><a href=\"javascript:alert(3)\">j</a>\n",
        "Dockerfile": "FROM python:3.12\n"}, {"runtime": {"stage": "SLEEPING"}})
    app = create_app(make_config(RLX_SOURCE="hub", HF_ENDPOINT=hub.url))
    html = app.test_client().get("/s/acme/xss-env").get_data(as_text=True)
    assert "Hello" in html
    assert "<script>alert" not in html and "onerror" not in html and "javascript:alert" not in html
