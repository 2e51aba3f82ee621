"""scripts/schedule_indexer.py prints the hourly indexer Job, and with --apply creates it on the Hub (the stand-in)."""

import json
import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "schedule_indexer.py"
SPACE, BUCKET = "FineEnvs/RL-Explorer", "FineEnvs/rl-explorer-data"
ADMIN_TOKEN = "hf_fineenvs_admin"


def schedule(*args, token=None):
    env = {k: v for k, v in os.environ.items() if k not in ("HF_TOKEN", "HF_ENDPOINT")}
    if token:
        env["HF_TOKEN"] = token
    return subprocess.run([sys.executable, str(SCRIPT), "--space", SPACE, "--bucket", BUCKET, *args], env=env,
                          capture_output=True, text=True, timeout=60)


def printed_job(stdout):
    return json.loads(stdout[stdout.index("{"):stdout.rindex("}") + 1])


def test_the_printed_job_runs_the_space_image_hourly_with_the_bucket_at_data():
    shown = schedule(token="hf_do_not_print_me")

    assert shown.returncode == 0, shown.stderr
    assert "not created; pass --apply" in shown.stdout and "hf_do_not_print_me" not in shown.stdout
    job = printed_job(shown.stdout)
    assert job["image"] == f"hf.co/spaces/{SPACE}" and job["command"] == ["rlx", "snapshot", "build"]
    assert job["schedule"] == "@hourly" and job["concurrency"] is False
    assert job["flavor"] == "cpu-upgrade" and job["timeout"] == 55 * 60
    assert job["env"] == {"STORAGE_DIR": "/data", "RLX_SOURCE": "hub"} and list(job["secrets"]) == ["HF_TOKEN"]
    assert job["volumes"] == [{"type": "bucket", "source": BUCKET, "mountPath": "/data", "readOnly": False}]
    assert job["namespace"] == "FineEnvs"


def test_apply_creates_the_scheduled_job_on_the_hub(hub):
    hub.add_token(ADMIN_TOKEN, "admin", orgs=("FineEnvs",))

    created = schedule("--apply", "--endpoint", hub.url, token=ADMIN_TOKEN)

    assert created.returncode == 0, created.stderr
    assert "Created the scheduled Job" in created.stdout and "@hourly" in created.stdout
    [sent] = hub.scheduled_jobs
    assert sent["namespace"] == "FineEnvs" and sent["schedule"] == "@hourly" and sent["concurrency"] is False
    spec = sent["jobSpec"]
    assert spec["spaceId"] == SPACE and "dockerImage" not in spec
    assert spec["command"] == ["rlx", "snapshot", "build"] and spec["flavor"] == "cpu-upgrade"
    assert spec["timeoutSeconds"] == 3300
    assert spec["environment"] == {"STORAGE_DIR": "/data", "RLX_SOURCE": "hub"}
    assert spec["secrets"] == {"HF_TOKEN": ADMIN_TOKEN}
    assert spec["volumes"] == [{"type": "bucket", "source": BUCKET, "mountPath": "/data", "readOnly": False}]
    assert ADMIN_TOKEN in hub.request_tokens


def test_apply_without_a_token_creates_nothing_and_says_why(hub):
    refused = schedule("--apply", "--endpoint", hub.url)

    assert refused.returncode == 1 and "--apply needs a token" in refused.stderr
    assert hub.scheduled_jobs == [] and hub.count("POST") == 0


def test_a_namespace_the_token_cannot_use_is_refused_in_one_sentence(hub):
    hub.add_token("hf_someone", "someone")

    refused = schedule("--apply", "--endpoint", hub.url, token="hf_someone")

    assert refused.returncode == 1 and "The Hub refused the scheduled Job" in refused.stderr
    assert "(403)" in refused.stderr and refused.stderr.count("\n") == 1 and hub.scheduled_jobs == []
