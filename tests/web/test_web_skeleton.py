"""The layout, the catalog's list page, fragments for htmx, health probes and error pages."""

import pytest


def test_home_lists_the_bundled_catalog_in_the_layout(client):
    page = client.get("/")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "<title>HF RL Explorer: reinforcement-learning environments on the Hub</title>" in html
    assert 'src="/static/vendor/htmx-2.0.11.min.js"' in html
    assert "rlx-examples/terminal-basics" in html
    assert 'class="cards"' in html


def test_htmx_request_for_the_results_gets_only_the_fragment(client):
    headers = {"HX-Request": "true", "HX-Target": "results"}
    fragment = client.get("/?q=terminal", headers=headers)
    html = fragment.get_data(as_text=True)
    assert "<html" not in html and "<header" not in html
    assert "rlx-examples/terminal-basics" in html
    assert "HX-Target" in fragment.headers["Vary"] and "HX-Request" in fragment.headers["Vary"]


@pytest.mark.parametrize("extra", [{"HX-Boosted": "true"}, {"HX-History-Restore-Request": "true"}, {}])
def test_boosted_navigation_and_history_restores_get_the_full_page(client, extra):
    headers = {"HX-Request": "true", **extra}
    if extra:
        headers["HX-Target"] = "results"
    assert "<html" in client.get("/", headers=headers).get_data(as_text=True)


def test_search_words_narrow_the_list_and_an_empty_result_says_so(client):
    html = client.get("/?q=no-such-environment-anywhere").get_data(as_text=True)
    assert "No environment matches." in html
    assert "0 environments" in html


def results_of(html: str) -> str:
    """The search results region only (the trending row and the header suggestions list everything)."""
    return html.split('id="results"', 1)[1]


def test_kind_filter_keeps_only_that_kind(client):
    html = results_of(client.get("/?kind=openenv").get_data(as_text=True))
    assert "rlx-examples/echo-env" in html
    assert "rlx-examples/terminal-basics" not in html


def test_unknown_page_is_a_404_in_the_layout(client):
    page = client.get("/no/such/page")
    assert page.status_code == 404
    html = page.get_data(as_text=True)
    assert "Nothing here" in html and 'class="top"' in html


def test_unknown_api_path_is_a_json_404(client):
    response = client.get("/api/nothing")
    assert response.status_code == 404
    assert response.get_json()["ok"] is False


def test_healthz_answers_without_dependencies(client):
    assert client.get("/healthz").get_json() == {"ok": True}


def test_readyz_is_not_ready_without_a_worker(client):
    response = client.get("/readyz")
    assert response.status_code == 503
    body = response.get_json()
    assert body["checks"]["redis"]["ok"] is True
    assert body["checks"]["source"]["ok"] is True
    assert body["checks"]["workers"]["ok"] is False
    assert "rlx worker" in body["checks"]["workers"]["error"]
    assert response.headers["Retry-After"]


def test_readyz_is_ready_with_redis_a_worker_and_the_source(client, running_worker):
    response = client.get("/readyz")
    body = response.get_json()
    assert response.status_code == 200, body
    assert body["checks"]["workers"]["queues"] == ["bulk", "index", "rollouts", "snapshot"]  # health checks run on bulk


def test_readyz_stays_ready_while_the_hub_is_down_since_pages_are_served_from_disk(make_config, hub,
                                                                                   running_worker):
    from rlx import create_app

    app = create_app(make_config(RLX_SOURCE="hub", HF_ENDPOINT=hub.url))
    client = app.test_client()
    assert client.get("/readyz").status_code == 200  # the catalog is read while the Hub is up
    hub.fail(503, times=100_000)
    response = client.get("/readyz")
    body = response.get_json()
    assert response.status_code == 200 and body["ok"] is True, body
    assert body["checks"]["source"]["ok"] is False and body["degraded"] == ["source"]


def test_readyz_reports_a_dead_redis(make_config, tmp_path):
    from rlx import create_app

    app = create_app(make_config(REDIS_URL=f"unix://{tmp_path}/nothing.sock"))
    body = app.test_client().get("/readyz").get_json()
    assert body["ok"] is False and body["checks"]["redis"]["ok"] is False


@pytest.mark.parametrize("name", ["app", "pages"])
def test_the_inlined_stylesheet_cannot_close_its_style_element(name):
    from pathlib import Path

    css = (Path(__file__).resolve().parents[2] / "rlx" / "static" / "css" / f"{name}.css").read_text()
    assert "</" not in css
