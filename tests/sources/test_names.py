"""The Hub's naming rule, checked once for every place that takes an id (routes, sources, settings, admin)."""

import pytest

from rlx.sources.names import ENV_ID, is_org_and_name, is_repo_id


@pytest.mark.parametrize("repo_id", ["rlx-examples/terminal-basics", "a/b", "Org_1/name.v2", "x" * 96 + "/y"])
def test_hub_names_are_accepted(repo_id):
    assert is_repo_id(repo_id)
    assert is_org_and_name(*repo_id.split("/"))
    assert ENV_ID.match(repo_id) and ENV_ID.match("space:" + repo_id)


@pytest.mark.parametrize("repo_id", ["", "a", "../etc", "a/..", "a/b/c", "a/b\n", "-a/b", "a/.b", "a/b?x=1", "a b/c",
                                     "x" * 97 + "/y", "space:a/b", "a/b#c", "a\\b/c"])
def test_anything_else_is_refused(repo_id):
    assert not is_repo_id(repo_id)
    org, _, name = repo_id.partition("/")
    assert not (is_org_and_name(org, name) and "/" not in name and repo_id.count("/") == 1 and not repo_id.startswith("space:"))
