"""The Task API browser on a Space's page, against a real openenv server (Harbor-shaped): splits, a page of tasks
and one task, answers withheld; bad numbers and unknown environments get a sentence."""

from __future__ import annotations

import html
import re

from rlx import create_app
from tests.live_site import space_folder

HARBOR = "acme/harbor-like"


def client_for(tmp_path, make_config, harbor_server):
    space_folder(tmp_path / "src", HARBOR, "acme-harbor-like")
    return create_app(make_config(RLX_SOURCE=str(tmp_path / "src"),
                                  RLX_SPACE_HOSTS=f"acme-harbor-like={harbor_server}")).test_client()


def test_splits_tasks_and_one_task_with_answers_withheld(tmp_path, make_config, redis_client, harbor_server):
    client = client_for(tmp_path, make_config, harbor_server)
    live = client.get(f"/s/{HARBOR}/live").get_data(as_text=True)  # the check that finds the Task API
    assert "Open the playground" in live  # offered once a check reached the server
    assert "Browse the tasks its server serves" in client.get(f"/s/{HARBOR}").get_data(as_text=True)
    splits = client.get(f"/s/{HARBOR}/tasks").get_data(as_text=True)
    assert "terminal-bench@2.0" in splits and "(80 tasks)" in splits and "dataset not found" in splits
    listing = client.get(f"/s/{HARBOR}/tasks", query_string={"split": "harbor-org/terminal-tasks"})
    text = listing.get_data(as_text=True)
    assert listing.status_code == 200 and ">t0<" in text and ">t2<" in text and "of 3" in text
    # withheld as each task's own page withholds it: the solution, and the fields the rows view does not place
    assert "secret answer" not in text and "9 fields withheld" in text
    one = client.get(f"/s/{HARBOR}/tasks", query_string={"split": "harbor-org/terminal-tasks", "index": 1})
    text = one.get_data(as_text=True)
    withheld = re.search(r"Withheld: ([^.<]*)\.", text)
    assert "Do thing 1." in text and "secret answer" not in text and "solution" in withheld.group(1).split(", ")


def test_bad_numbers_and_unknown_environments_get_a_sentence(tmp_path, make_config, redis_client, harbor_server):
    client = client_for(tmp_path, make_config, harbor_server)
    bad = client.get(f"/s/{HARBOR}/tasks", query_string={"split": "x", "index": "-1"})
    assert bad.status_code == 400 and "whole number" in bad.get_data(as_text=True)
    huge = client.get(f"/s/{HARBOR}/tasks", query_string={"split": "x", "start": "99999999999"})
    assert huge.status_code == 400
    other = client.get(f"/s/{HARBOR}/tasks", query_string={"env": "../admin"})
    assert other.status_code == 400
    assert "not one of this server's Task API environments" in html.unescape(other.get_data(as_text=True))
