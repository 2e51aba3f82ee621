"""Where a run's sandbox lives, seen from the web and the job, without importing Harbor.

`local` is this machine's bubblewrap sandbox; `hf` an HF Sandbox on the visitor's own Hugging Face account. An HF
run needs the visitor's token: the web hands it to the job through Redis under the run's id, with a time limit,
and the job takes it once (GETDEL), so it is never written to the store, a record, Harbor's files or the events.
"""

from __future__ import annotations

import dataclasses

from rlx.queue.defaults import KEY_PREFIX

LOCAL, HF = "local", "hf"
LOCAL_IMPORT_PATH = "rlx.runs.local_env:LocalEnvironment"
HF_IMPORT_PATH = "rlx.runs.hf_sandbox_env:HFSandboxEnvironment"
NOT_SIGNED_IN = ("Sign in with Hugging Face to run it on an HF Sandbox: the sandbox is a Job on your own account, "
                 "started with your token (it needs the jobs permission and credits).")
TOKEN_SLACK_SEC = 3600  # the token waits at most this long past the run's own time limit for a worker


def for_visitor(options: list, signed_in: bool) -> list:
    """The run options as this visitor sees them: HF Sandboxes only for a signed-in visitor."""
    if signed_in:
        return options
    return [dataclasses.replace(o, can_run=False, why_not=NOT_SIGNED_IN, fields=[])
            if o.key == HF and o.can_run else o for o in options]


def token_key(run_id: str) -> str:
    return f"{KEY_PREFIX}run:{run_id}:hf-token"


def hand_token(redis, run_id: str, token: str, run_seconds: int) -> None:
    redis.set(token_key(run_id), token, ex=int(run_seconds) + TOKEN_SLACK_SEC)


def take_token(redis, run_id: str) -> str | None:
    raw = redis.getdel(token_key(run_id))
    return raw.decode() if isinstance(raw, bytes) else raw


def environment_config(run, token: str | None, start_timeout: float = 180.0):
    """Harbor's EnvironmentConfig for this run. Its kwargs are written to config.json: nothing secret in them."""
    from harbor.models.trial.config import EnvironmentConfig

    if run.sandbox != HF:
        return EnvironmentConfig(import_path=LOCAL_IMPORT_PATH, delete=True)
    if not token:
        raise PermissionError("This run was to start an HF Sandbox on your account, and its token has expired "
                              "or was never given; sign in and start it again.")
    return EnvironmentConfig(import_path=HF_IMPORT_PATH, delete=True, kwargs={
        "run_id": run.id, "idle_timeout": max(int(run.job_timeout or 0), 600), "flavor": "cpu-basic",
        "start_timeout": start_timeout})


def describe(run) -> str:
    return ("HF Sandbox (a Hugging Face Job on the visitor's account, " + HF_IMPORT_PATH + ")" if run.sandbox == HF
            else "local (bubblewrap, " + LOCAL_IMPORT_PATH + ")")
