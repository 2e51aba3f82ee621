"""The links a page makes by the hundred (task rows, facet values) are the links url_for would make."""

import pytest
from flask import url_for

from rlx.http.links import path_link, query_link

REFS = ["plain", "a/b/c", "with space", "100%", "q?x=1", "hash#tag", "ünïcode/ß", "plus+and&amp", "semi;colon",
        "tilde~", "quote'\"", "a//b"]
ARGS = [{}, {"q": "two words"}, {"f": ["difficulty:hard", "category:a/b"]}, {"q": "x&y=z", "page": 3},
        {"f": ["tags:c++", "k:ü"], "q": "#1"}, {"q": None, "page": 2}]


@pytest.mark.parametrize("ref", REFS)
def test_a_task_link_is_the_one_url_for_makes(app, ref):
    with app.test_request_context("/"):
        link = path_link("tasks.task_page", "ref", org="some-org", name="a.name")
        assert link(ref) == url_for("tasks.task_page", org="some-org", name="a.name", ref=ref)


@pytest.mark.parametrize("args", ARGS)
def test_a_facet_link_is_the_one_url_for_makes(app, args):
    with app.test_request_context("/"):
        link = query_link("envs.env_page", org="some-org", name="a.name")
        assert link(args) == url_for("envs.env_page", org="some-org", name="a.name", **args)


def test_links_keep_the_prefix_the_app_is_mounted_under(app):
    with app.test_request_context("/", base_url="http://example.test/explorer/"):
        assert path_link("tasks.task_page", "ref", org="o", name="n")("a b") == "/explorer/t/o/n/a%20b"
        assert query_link("envs.env_page", org="o", name="n")({"q": "a b"}) == "/explorer/d/o/n?q=a+b"
