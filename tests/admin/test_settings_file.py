"""A bad settings file never takes the site down: whatever sits at STORAGE_DIR/admin/settings.json (not JSON, too
deep, a field of the wrong type, too big, a FIFO, a folder), the explorer keeps answering with the last good
settings, the admin's pages say why the file is refused, and the admin's next save repairs it."""

from __future__ import annotations

import json
import logging
import os
import threading

import pytest

from rlx import create_app
from tests.admin.test_admin import CAROL, ORIGIN, apps, people, signed_in  # noqa: F401 (fixtures)
from tests.processes import wait_until

HIDDEN = "rlx-examples/terminal-basics"
GOOD = {"hidden": [HIDDEN], "banner": {"text": "Good banner 7731", "id": "good"}}


def _not_json(path):
    path.write_text("{not json")


def _deep(path):
    path.write_text("[" * 200_000 + "]" * 200_000)


def _deep_but_small(path):
    path.write_text(json.dumps({"collections": {"a": {"items": [[[["x"]]]]}}}))


def _collections_a_list(path):
    path.write_text(json.dumps({**GOOD, "collections": ["a/b"]}))


def _rollouts_wrong(path):
    path.write_text(json.dumps({**GOOD, "rollouts": {"enabled": "no"}}))


def _hidden_a_string(path):
    path.write_text(json.dumps({"hidden": "rlx-examples/terminal-basics"}))


def _too_big(path):
    path.write_text(json.dumps({**GOOD, "pad": "x" * (2 << 20)}))


def _fifo(path):
    path.unlink()
    os.mkfifo(path)


def _folder(path):
    path.unlink()
    path.mkdir()


def _not_utf8(path):
    path.write_bytes(b'{"banner": {"text": "\xff\xfe"}}')


BAD_FILES = {"not JSON": (_not_json, "not valid JSON"), "200,000 levels deep": (_deep, "deeper"),
             "deeper than the format": (_deep_but_small, "deeper"),
             "collections a list": (_collections_a_list, "`collections`"),
             "rollouts.enabled a string": (_rollouts_wrong, "`rollouts.enabled`"),
             "hidden a string": (_hidden_a_string, "`hidden`"), "2 MB": (_too_big, "over the cap"),
             "a FIFO": (_fifo, "not a regular file"), "a folder": (_folder, "not a regular file"),
             "not UTF-8": (_not_utf8, "UTF-8")}


def within(seconds, fn):
    """fn() from another thread, or a failure naming the hang (a FIFO opened without O_NONBLOCK never returns)."""
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("answer", fn()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert "answer" in result, f"no answer within {seconds} s: the request hangs"
    return result["answer"]


def good_settings_seen(public, admin):
    path = admin.extensions["rlx.store"].settings_path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(GOOD))
    explorer = public.test_client()
    assert "Good banner 7731" in explorer.get("/").text
    return path, explorer


def shows_last_good(explorer):
    home = within(10, lambda: explorer.get("/"))
    assert home.status_code == 200 and "Good banner 7731" in home.text
    cards = within(10, lambda: explorer.get("/api/search?size=50"))
    assert cards.status_code == 200 and HIDDEN not in [c["id"] for c in cards.json["cards"]]
    assert within(10, lambda: explorer.get("/healthz")).status_code == 200
    env = within(10, lambda: explorer.get("/d/rlx-examples/science-puzzles"))
    assert env.status_code == 200


@pytest.mark.parametrize("case", list(BAD_FILES), ids=list(BAD_FILES))
def test_a_bad_settings_file_keeps_the_last_good_settings_and_the_admin_says_why(apps, case, caplog):
    public, admin = apps
    path, explorer = good_settings_seen(public, admin)
    carol = signed_in(admin, CAROL)
    assert carol.get("/admin/settings").status_code == 200  # the admin too has seen the good file
    spoil, reason = BAD_FILES[case]
    with caplog.at_level(logging.WARNING, logger="rlx.settings"):
        spoil(path)
        shows_last_good(explorer)
    assert any("settings.refused" in r.getMessage() and reason in r.getMessage() for r in caplog.records)

    page = within(10, lambda: carol.get("/admin/settings"))
    assert page.status_code == 200 and "The settings file" in page.text and reason.replace("`", "") in \
        page.text.replace("`", "")
    assert "Good banner 7731" in carol.get("/admin/banner").text  # the admin's pages show the last good settings

    if path.is_dir():  # a folder cannot be renamed over (any other bad file can): the save says so, changing nothing
        refused = carol.post("/admin/banner", data={"text": "Repaired 4410", "id": "fix"}, headers=ORIGIN)
        assert refused.status_code == 409 and "folder" in refused.text
        return
    saved = within(10, lambda: carol.post("/admin/banner", data={"text": "Repaired 4410", "id": "fix"},
                                          headers=ORIGIN))
    assert saved.status_code == 303
    stored = json.loads(path.read_text())
    assert stored["hidden"] == [HIDDEN] and stored["banner"]["text"] == "Repaired 4410"
    assert wait_until(lambda: "Repaired 4410" in explorer.get("/").text)
    assert "The settings file" not in carol.get("/admin/settings").text


def test_a_process_started_while_the_file_is_bad_begins_from_the_last_good_settings(apps, make_config):
    public, admin = apps
    path, _ = good_settings_seen(public, admin)
    _collections_a_list(path)
    fresh = create_app(make_config()).test_client()  # a new gunicorn worker, say, after a restart
    shows_last_good(fresh)


def test_a_request_does_not_read_the_file_again_until_it_changes(apps, monkeypatch):
    import rlx.store.settings_file as settings_file

    public, admin = apps
    path, explorer = good_settings_seen(public, admin)
    reads = []
    real = settings_file.read_settings_bytes
    monkeypatch.setattr(settings_file, "read_settings_bytes", lambda p: reads.append(p) or real(p))
    for _ in range(5):
        assert explorer.get("/").status_code == 200
    assert reads == []
    path.write_text(json.dumps({**GOOD, "banner": {"text": "Changed 5521"}}))
    assert "Changed 5521" in explorer.get("/").text
    for _ in range(5):
        explorer.get("/")
    assert len(reads) == 1


def test_the_admin_never_writes_a_file_the_explorer_would_refuse(apps):
    from rlx.admin.store import update_settings
    from rlx.store.settings import SettingsError

    _, admin = apps
    path = admin.extensions["rlx.store"].settings_path
    with pytest.raises(SettingsError):
        update_settings(path, lambda data: data.update(collections=["a/b"]))
    assert not path.exists()
