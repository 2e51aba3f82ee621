"""A hostile pass over the routes of session 11 (Your runs, compare of two sets, rollout files and traces,
environment health, task rollout lists): bad input of every kind gets a clear 4xx, never a 500; a cross-site POST
changes nothing; another visitor's private run reaches nobody else, on any page or JSON.

Runs are written to the store and its index as the job writes them (rlx.runs.record.save, rlx.runs.runs_db.upsert),
so no sandbox is needed and the file stays fast; the app is the ordinary test app on the bundled examples."""

from __future__ import annotations

import pytest

from rlx.runs import runs_db
from rlx.runs import record as records
from rlx.runs.record import RunRecord
from rlx.web.runs.owner import visitor_id
from tests.conftest import index_now

OURS = {"Origin": "http://localhost"}
HARBOR = "rlx-examples/terminal-basics"
TRACES = "rlx-examples/agent-traces"
TASK = "config-rewrite-sed"
ALICE_RAW, BOB_RAW = "alice-session-0123456789", "bob-session-0123456789ab"


def owner_id(app, raw: str) -> str:
    with app.test_request_context():
        from flask import session

        session["visitor"] = raw
        return visitor_id()


def as_visitor(app, raw: str):
    client = app.test_client()
    with client.session_transaction() as session:
        session["visitor"] = raw
    return client


def seed_run(app, run_id: str, raw: str, visibility: str, env_id: str = HARBOR, ref: str = TASK,
             agent: str = "oracle", **fields) -> RunRecord:
    run = RunRecord(id=run_id, env_id=env_id, ref=ref, agent=agent, visitor=owner_id(app, raw),
                    visibility=visibility, status="finished", scored=True, rewards={"reward": 1.0},
                    finished_at=records.now_iso(), **fields)
    store = app.extensions["rlx.store"]
    records.save(store, run)
    runs_db.upsert(store, run)
    return run


@pytest.fixture
def seeded(app):
    index_now(app, HARBOR)
    seed_run(app, "alicepriv001", ALICE_RAW, "private")
    seed_run(app, "alicepubl001", ALICE_RAW, "public")
    return app


BAD_GETS = [
    "/runs/mine?outcome=%ff", "/runs/mine?env=%ff%fe", "/runs/mine?agent=" + "x" * 100_000, "/runs/mine?env=../..",
    "/runs/mine?outcome=solved&outcome=failed", "/runs/mine?env=%00", "/api/runs/mine?outcome=nope",
    "/api/runs/mine?env=%c0%80",
    "/compare/sets?a=batch:../../etc&b=batch:x", "/compare/sets?a=batch:zzzzzzzzzzzz&b=batch:zzzzzzzzzzzz",
    "/compare/sets?a=agent:oracle&b=agent:nop", "/compare/sets?a=agent:oracle&b=agent:nop&env=../../x",
    f"/compare/sets?a=agent:oracle&b=agent:nop&env={HARBOR}", "/compare/sets?a=agent:%ff&b=agent:nop&env=a/b",
    "/compare/sets?a=agent:oracle:&b=agent::&env=a/b", "/compare/sets?a=nothing&b=x", "/compare/sets?a=%00&b=%00",
    "/compare/sets.xml?a=batch:x&b=batch:y", "/compare/sets.csv", "/compare/sets.json?a=agent:a&b=agent:b&env=a/b",
    "/compare/sets.jsonl?a=agent:a OR 1=1&b=agent:b&env=a/b", f"/compare/sets?a=agent:{'o' * 5000}&b=x&env=a/b",
    f"/d/{HARBOR}/rollouts/0", f"/d/{HARBOR}/rollouts/99999999999999999999999",
    f"/d/{HARBOR}/rollouts/-1", f"/d/{HARBOR}/rollouts/0/99999999999999999999", f"/d/{HARBOR}/rollouts/0/-5",
    f"/d/{TRACES}/rollouts/0", f"/d/{TRACES}/rollouts/0/99999999999999999999",
    f"/d/{TRACES}/rollouts/99999999999999999999/0", "/d/nobody/nothing/rollouts/0", "/d/../../rollouts/0",
    "/d/%ff/%fe/rollouts/0/0",
    f"/d/{HARBOR}/health", "/d/nobody/nothing/health", f"/api/env/{HARBOR}/health", "/api/env/nobody/nothing/health",
    "/api/env/%ff/x/health",
    f"/api/task/{HARBOR}/{TASK}", f"/api/task/{HARBOR}/..%2f..%2fetc", f"/t/{HARBOR}/%ff",
]


def test_bad_input_is_never_a_500(seeded):
    for client, path in [(c, p) for c in (seeded.test_client(), as_visitor(seeded, ALICE_RAW)) for p in BAD_GETS]:
        response = client.get(path)
        assert response.status_code < 500 or response.status_code == 503, (path, response.status_code,
                                                                          response.get_data(as_text=True)[:300])
        if response.status_code in (301, 302, 303, 307, 308):
            assert response.headers["Location"].startswith("/"), response.headers["Location"]



CROSS_SITE = [{}, {"Origin": "https://evil.example"}, {"Origin": "null"}, {"Referer": "https://evil.example/x"}]


def test_a_cross_site_post_starts_no_health_check_and_one_of_nothing_is_a_404(seeded):
    client = seeded.test_client()
    for headers in CROSS_SITE:
        assert client.post(f"/d/{HARBOR}/health", headers=headers).status_code == 403, headers
    assert client.get(f"/api/env/{HARBOR}/health").get_json()["checked"] is False
    for path in ("/d/nobody/nothing/health", "/d/%ff/x/health", "/d/../../health"):
        assert client.post(path, headers=OURS).status_code == 404, path


def test_a_private_run_reaches_its_owner_only(seeded):
    owner, other, anonymous = as_visitor(seeded, ALICE_RAW), as_visitor(seeded, BOB_RAW), seeded.test_client()
    mine = [r["id"] for r in owner.get("/api/runs/mine").get_json()["runs"]]
    assert sorted(mine) == ["alicepriv001", "alicepubl001"]
    forged = seeded.test_client()
    forged.set_cookie("session", "eyJ2aXNpdG9yIjoiYWxpY2Utc2Vzc2lvbi0wMTIzNDU2Nzg5In0.forged.signature")
    for client in (other, anonymous, forged):
        assert client.get("/api/runs/mine").get_json()["runs"] == []
        for path in ("/runs/mine", f"/d/{HARBOR}", f"/t/{HARBOR}/{TASK}", f"/api/task/{HARBOR}/{TASK}",
                     f"/compare/sets?env={HARBOR}&a=agent:oracle&b=agent:nop",
                     f"/compare/sets.json?env={HARBOR}&a=agent:oracle&b=agent:nop"):
            body = client.get(path).get_data(as_text=True)
            assert "alicepriv001" not in body, path
            if path.startswith(("/d/", "/t/", "/api/task/")):  # the public one is listed there: the probe looks
                assert "alicepubl001" in body, path
        for path in ("/r/alicepriv001", "/api/runs/alicepriv001", "/compare?runs=alicepriv001"):
            assert client.get(path).status_code == 404, path


GOLD = "QX-TASK-GOLD-7731"


@pytest.fixture(scope="module")
def gym(tmp_path_factory, redis_url):
    """A NeMo Gym resource server's data (shape of NVIDIA-NeMo/Gym's example.jsonl beside example_rollouts.jsonl):
    the task holds its expected answer; the rollout record does not repeat it as a field, only in the agent's
    reply, as a rollout file that dropped its grader columns would."""
    import json

    from rlx import create_app
    from rlx.config import Config

    hub = tmp_path_factory.mktemp("hostile") / "hub"
    root = hub / "datasets" / "gym" / "answers"
    (root / "data").mkdir(parents=True)
    (root / "README.md").write_text("---\npretty_name: Answers\ntags:\n- nemo-gym\n---\n")
    task = {"responses_create_params": {"input": [{"role": "user", "content": "Name the secret city."}]},
            "expected_answer": GOLD}
    rollout = {"responses_create_params": {"input": [{"role": "user", "content": "Name the secret city."}]},
               "response": {"model": "m", "output": [{"type": "message", "role": "assistant", "content": [
                   {"type": "output_text", "text": f"The city is {GOLD}."}]}]},
               "reward": 1.0, "_ng_task_index": 0, "_ng_rollout_index": 0}
    (root / "data" / "example.jsonl").write_text(json.dumps(task) + "\n")
    (root / "data" / "example_rollouts.jsonl").write_text(json.dumps(rollout) + "\n")
    app = create_app(Config.from_env({"STORAGE_DIR": str(hub.parent / "data"), "REDIS_URL": redis_url,
                                      "SESSION_SECRET": "test-secret", "RLX_SOURCE": str(hub)}))
    index_now(app, "gym/answers")
    return app


def test_a_trace_keeps_its_tasks_withheld_answer_out(gym):
    client = gym.test_client()
    assert GOLD not in client.get("/t/gym/answers/train/0").get_data(as_text=True)  # the task withholds it
    listing = client.get("/d/gym/answers/rollouts/0").get_data(as_text=True)
    assert 'href="/t/gym/answers/train/0"' in listing  # the trace is linked to that task
    trace = client.get("/d/gym/answers/rollouts/0/0").get_data(as_text=True)
    assert "The city is" in trace and GOLD not in trace
    assert GOLD not in listing


@pytest.mark.parametrize("manifest", [
    "environments: " + "[" * 5000 + "]" * 5000,  # nested past Python's recursion limit
    "environments:\n- id: x\n  frameworks: [harbor]\n  runtime: " + "{a: " * 3000 + "1" + "}" * 3000,
    "".join(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}' if i else 'ha'] * 9)}]\n" for i in range(9))
    + "environments:\n- id: x\n  frameworks: [harbor]\n  runtime: *l8\n",  # the billion laughs
    "environments:\n- &e {id: x, frameworks: [harbor], runtime: [*e]}\n",  # an item holding itself
])
def test_an_environment_yaml_bomb_is_a_problem_said_not_a_crash(manifest):
    from rlx.adapters.manifest import manifest_sections, parse_manifest

    read = parse_manifest(manifest.encode())
    assert read["environments"] == [] and "environment.yaml" in read["problems"][0]
    assert len(str(manifest_sections(read))) < 10_000
