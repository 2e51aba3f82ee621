"""Where a run's sandbox lives, seen from the web and the job, without importing Harbor.

`local` is this machine's bubblewrap sandbox; `hf` an HF Sandbox on the visitor's own Hugging Face account. An HF
run needs the visitor's token: the web hands it to the job through Redis under the run's id, with a time limit,
and it is never written to the store, a record, Harbor's files or the events. The job reads it, and deletes it
when the run ends; a run whose job died instead (a killed work horse) leaves it for `cancel_left_behind`, which
cancels the run's sandbox job on the visitor's account and then forgets the token.
"""

from __future__ import annotations

import dataclasses

from rlx.queue.defaults import KEY_PREFIX

LOCAL, HF = "local", "hf"
LOCAL_IMPORT_PATH = "rlx.runs.local_env:LocalEnvironment"
HF_IMPORT_PATH = "rlx.runs.hf_sandbox_env:HFSandboxEnvironment"
NOT_SIGNED_IN = "Sign in with Hugging Face to run it on an HF Sandbox (it needs the jobs permission and credits)."
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


def read_token(redis, run_id: str) -> str | None:
    raw = redis.get(token_key(run_id))
    return raw.decode() if isinstance(raw, bytes) else raw


def take_token(redis, run_id: str) -> str | None:
    raw = redis.getdel(token_key(run_id))
    return raw.decode() if isinstance(raw, bytes) else raw


def after_lost_run(redis, run) -> None:
    """A run ended without its job's own cleanup (rlx/jobs/settle.py): cancel its sandbox upstream, from a worker."""
    if run.sandbox == HF and redis.exists(token_key(run.id)):
        from rlx.jobs.enqueue import enqueue_sandbox_cancel

        enqueue_sandbox_cancel(run.id)


def cancel_left_behind(run_id: str) -> list[str]:
    """The RQ job: cancel every sandbox job the run said it started, with the visitor's token, then forget it."""
    from huggingface_hub import HfApi

    from rlx.queue import get_redis
    from rlx.runs import events

    redis = get_redis()
    token = take_token(redis, run_id)
    if not token:
        return []
    bound_hub_calls(30.0)
    started = {e["job"] for _id, e in events.read(redis, run_id, count=events.MAX_EVENTS)
               if e.get("kind") == "sandbox" and isinstance(e.get("job"), str)}
    api = HfApi(token=token)
    for job_id in sorted(started):
        api.cancel_job(job_id=job_id)
    return sorted(started)


def bound_hub_calls(seconds: float) -> None:
    """huggingface_hub's shared HTTP client waits forever by default, so a Jobs API that hangs would hold a run
    until its job's time limit. Only work horses call this (RQ forks one per job), so the limit stays with the job."""
    import httpx2
    from huggingface_hub.utils import _http

    _http.set_client_factory(lambda: httpx2.Client(
        event_hooks={"request": [_http.hf_request_event_hook]}, follow_redirects=True,
        timeout=httpx2.Timeout(seconds, connect=min(seconds, 10.0))))


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
