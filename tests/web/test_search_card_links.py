"""A search card links to its environment's page exactly as Flask's url_for writes that page's address, whatever
the repository's name holds and wherever the app is mounted."""

import pytest
from flask import url_for

from rlx.web.catalog.search import CardLinks

KEYS = ["org/name", "Org-1/env_2.v3", "org/with space", "org/per%cent", "org/q?x#y", "org/日本語", "org/a+b&c=d",
        "org/tilde~semi;colon:at@", "org/", "noslash", "org/a/b", "my org/x", "ör%g/ÿ", "/name", "o!$'()*,/n",
        "org/x/y/z", "org/a\"b", "org/<b>", "org/back\\slash", "org/tab\there", "org/caret^`{|}", "org/[v6]"]


@pytest.mark.parametrize("mounted_at", ["http://localhost/", "http://localhost/explorer/"])
@pytest.mark.parametrize("repo_type,endpoint", [("dataset", "envs.env_page"), ("space", "spaces.space_page")])
def test_each_card_links_where_url_for_points(app, mounted_at, repo_type, endpoint):
    with app.test_request_context("/api/search", base_url=mounted_at):
        links = CardLinks()
        for key in KEYS:
            org, _, name = key.partition("/")
            assert links.url(repo_type, key) == url_for(endpoint, org=org, name=name), key
