"""What a client reads in a JSON answer: markup characters only ever as \\u escapes, every value as the view gave it
(once parsed), keys in the view's order, dates as HTTP dates; gzip when the client accepts it, the same JSON once
unzipped."""

import gzip
import json
from datetime import datetime, timezone

import pytest
from flask import jsonify

ODD = {"markup": "<b>Tom & Jerry's</b>", "accents": "café naïve Ωmega 日本語 🙂",
       "controls": "tab\there\nline\"q\\", "line separators": "a\u2028b\u2029c", "zebra": 1,
       "apple": [1.5, -0, 10**18, True, None, {"nested": "<>"}]}


@pytest.fixture
def json_app(app):
    app.add_url_rule("/odd", "odd", lambda: jsonify(ODD))
    app.add_url_rule("/dated", "dated", lambda: {"at": datetime(2026, 12, 1, 19, 30, tzinfo=timezone.utc)})
    app.add_url_rule("/numbered", "numbered", lambda: jsonify({1: "one", 2: "two"}))
    app.add_url_rule("/big", "big", lambda: jsonify({"words": ["agent"] * 400}))
    return app


def test_a_json_answer_carries_markup_only_as_escapes_and_means_what_the_view_said(json_app):
    response = json_app.test_client().get("/odd")
    raw = response.get_data()
    assert not any(char in raw for char in b"<>&'")
    assert json.loads(raw) == ODD
    assert list(json.loads(raw)) == list(ODD)  # the view's order, not sorted


def test_dates_and_keys_that_are_not_strings_answer_as_they_always_did(json_app):
    client = json_app.test_client()
    assert client.get("/dated").get_json() == {"at": "Tue, 01 Dec 2026 19:30:00 GMT"}
    assert client.get("/numbered").get_json() == {"1": "one", "2": "two"}


def test_search_answers_are_gzipped_for_a_client_that_accepts_it_and_plain_for_one_that_does_not(json_app):
    client = json_app.test_client()
    for path in ("/big", "/api/search"):
        plain = client.get(path)
        zipped = client.get(path, headers={"Accept-Encoding": "gzip, deflate"})
        refused = client.get(path, headers={"Accept-Encoding": "gzip;q=0, identity"})
        assert zipped.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in zipped.headers["Vary"], path
        assert json.loads(gzip.decompress(zipped.data)) == plain.get_json(), path
        assert int(zipped.headers["Content-Length"]) == len(zipped.data) < len(plain.data), path
        assert "Content-Encoding" not in plain.headers and "Content-Encoding" not in refused.headers, path
        assert "Accept-Encoding" in plain.headers["Vary"], path
    small = client.get("/api/search/rank?key=nobody/none", headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in small.headers  # too small to gain from it


def test_a_repeat_search_with_its_validator_is_a_304_zipped_or_not(json_app, monkeypatch):
    # The validator turns over every ten minutes (api_search.py): the clock is held so the requests share one.
    from types import SimpleNamespace

    import rlx.web.catalog.api_search as api_search

    monkeypatch.setattr(api_search, "time", SimpleNamespace(time=lambda: 1_800_000_000.0))
    client = json_app.test_client()
    first = client.get("/api/search?q=terminal", headers={"Accept-Encoding": "gzip"})
    etag = first.headers["ETag"]
    again = client.get("/api/search?q=terminal", headers={"Accept-Encoding": "gzip", "If-None-Match": etag})
    assert again.status_code == 304 and not again.data
    assert client.get("/api/search?q=terminal", headers={"If-None-Match": etag}).status_code == 304
