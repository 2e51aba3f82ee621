"""The demo's stand-in account: a person trying `rlx demo` offline sees the signed-in pages with one button, and
that button (and the account) exist nowhere else. A token pasted while the Hub is out of reach gets one plain
sentence on the sign-in page, not an error page."""

from __future__ import annotations

import pytest

from rlx import create_app
from rlx.config import ConfigError

ORIGIN = {"Origin": "http://localhost"}
BUTTON = "Sign in as the demo user"


def signed_in_name(client) -> str | None:
    page = client.get("/signin").text
    marker = 'class="account-name">'
    return page.split(marker, 1)[1].split("<", 1)[0] if marker in page else None


def test_in_demo_mode_one_button_signs_in_as_the_stand_in_and_your_runs_is_its_own(make_config, redis_client):
    client = create_app(make_config(RLX_DEMO_ACCOUNT="demo-user")).test_client()
    page = client.get("/signin").text
    assert BUTTON in page and "private and gated datasets" in page and "Your runs" in page
    response = client.post("/signin/demo", data={"next": "/runs/mine"}, headers=ORIGIN)
    assert response.status_code == 303 and response.headers["Location"] == "/runs/mine"
    assert signed_in_name(client) == "demo-user"
    mine = client.get("/runs/mine")
    assert mine.status_code == 200 and "demo-user" in mine.text


def test_outside_demo_mode_there_is_no_demo_button_and_no_demo_sign_in(make_config, redis_client):
    demo_app = create_app(make_config(RLX_DEMO_ACCOUNT="demo-user"))
    demo_client = demo_app.test_client()
    demo_client.post("/signin/demo", headers=ORIGIN)
    cookie = demo_client.get_cookie("rlx_account")
    assert cookie is not None

    plain = create_app(make_config()).test_client()  # same secret, demo mode off
    assert BUTTON not in plain.get("/signin").text
    assert plain.post("/signin/demo", headers=ORIGIN).status_code == 404
    plain.set_cookie("rlx_account", cookie.value)  # a demo cookie carried over counts for nobody
    assert signed_in_name(plain) is None


def test_the_demo_account_cannot_be_set_beside_the_hub(make_config):
    with pytest.raises(ConfigError, match="RLX_DEMO_ACCOUNT"):
        make_config(RLX_SOURCE="hub", RLX_DEMO_ACCOUNT="demo-user")
    with pytest.raises(ConfigError, match="RLX_DEMO_ACCOUNT"):
        make_config(RLX_DEMO_ACCOUNT="Not A Handle!")


def test_a_token_pasted_while_the_hub_is_out_of_reach_gets_a_plain_sentence_on_the_sign_in_page(make_config,
                                                                                                redis_client):
    client = create_app(make_config(HF_ENDPOINT="http://127.0.0.1:9")).test_client()  # nothing listens there
    response = client.post("/signin/token", data={"token": "hf_offline_token_123"}, headers=ORIGIN)
    assert response.status_code == 503
    text = response.text
    assert "Hugging Face could not be reached" in text
    assert 'name="token"' in text  # the sign-in page itself, its form still there
    assert "hf_offline_token_123" not in text
    assert signed_in_name(client) is None
