"""Forms for a server that is not OpenEnv (a real FastAPI app on loopback): one per plain route, path parameters
checked, the session's cookies kept on our side, answer-like fields dropped; OpenEnv's own routes never offered."""

from __future__ import annotations

import html

from rlx import create_app
from tests.live_site import space_folder

PLAIN = "acme/plain-api"


def make_client(tmp_path, make_config, hosts, space, subdomain):
    space_folder(tmp_path / "src", space, subdomain)
    client = create_app(make_config(RLX_SOURCE=str(tmp_path / "src"), RLX_SPACE_HOSTS=hosts)).test_client()
    client.environ_base["HTTP_ORIGIN"] = "http://localhost"  # the app's own pages post the forms
    return client


def text(response) -> str:
    return html.unescape(response.get_data(as_text=True))


def test_one_form_per_route_and_answers_withheld(tmp_path, make_config, redis_client, plain_server):
    client = make_client(tmp_path, make_config, f"acme-plain-api={plain_server}", PLAIN, "acme-plain-api")
    page = text(client.get(f"/s/{PLAIN}/routes"))
    for route in ("GET /items/{item_id}", "POST /grade", "GET /login", "GET /whoami"):
        assert f"<code>{route}</code>" in page
    assert 'name="path.item_id"' in page and 'name="body.attempt"' in page and 'name="query.verbose"' in page
    item = text(client.post(f"/s/{PLAIN}/routes", data={"route": "GET /items/{item_id}", "path.item_id": "abc",
                                                         "query.verbose": "on"}))
    assert '"item_id": "abc"' in item and '"verbose": true' in item
    assert "hidden-abc" not in item and "Withheld: reference_answer." in item
    graded = text(client.post(f"/s/{PLAIN}/routes", data={"route": "POST /grade", "body.task_id": "t1",
                                                          "body.attempt": "42", "body.tries": "2"}))
    assert '"score": 1.0' in graded and '"tries": 2' in graded and "expected_output" not in graded.split("Withheld")[0]


def test_the_sessions_cookies_stay_on_our_side(tmp_path, make_config, redis_client, plain_server):
    client = make_client(tmp_path, make_config, f"acme-plain-api={plain_server}", PLAIN, "acme-plain-api")
    client.get(f"/s/{PLAIN}/routes")
    login = client.post(f"/s/{PLAIN}/routes", data={"route": "GET /login", "query.name": "ada"})
    assert "who=" not in (login.headers.get("Set-Cookie") or "")  # the server's cookie never reaches the browser
    assert '"who": "ada"' in text(client.post(f"/s/{PLAIN}/routes", data={"route": "GET /whoami"}))
    stranger = create_app(client.application.config["RLX"]).test_client()  # another visitor: their own jar
    stranger.environ_base["HTTP_ORIGIN"] = "http://localhost"
    stranger.get(f"/s/{PLAIN}/routes")
    assert '"who": "nobody"' in text(stranger.post(f"/s/{PLAIN}/routes", data={"route": "GET /whoami"}))


def test_bad_path_parameters_and_unknown_routes_are_refused(tmp_path, make_config, redis_client, plain_server):
    client = make_client(tmp_path, make_config, f"acme-plain-api={plain_server}", PLAIN, "acme-plain-api")
    climb = client.post(f"/s/{PLAIN}/routes", data={"route": "GET /items/{item_id}", "path.item_id": "../admin"})
    assert climb.status_code == 400 and "one plain path segment" in text(climb)
    unknown = client.post(f"/s/{PLAIN}/routes", data={"route": "GET /admin"})
    assert unknown.status_code == 400 and "not one this server publishes" in text(unknown)
    bad_number = client.post(f"/s/{PLAIN}/routes", data={"route": "POST /grade", "body.task_id": "t",
                                                         "body.attempt": "1", "body.tries": "many"})
    assert bad_number.status_code == 400 and "whole number" in text(bad_number)


def test_an_openenv_servers_protocol_routes_are_not_forms(tmp_path, make_config, redis_client, openenv_server):
    client = make_client(tmp_path, make_config, f"acme-echo={openenv_server}", "acme/echo", "acme-echo")
    response = client.get("/s/acme/echo/routes")
    assert response.status_code == 404 and "publishes no plain GET or POST routes" in text(response)
