"""The rollout job: one RQ job on the `rollouts` queue drives one Harbor Trial in the local sandbox.

Everything that can go wrong ends in the run record: a task that cannot be copied, a Trial that refuses to be
created, an agent that times out, a verifier that writes no reward, the job's own time limit, a stop request.
The worker's tokens never reach the sandbox (it starts with an empty environment) and never enter the store.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import logging
import os
import platform
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from flask import current_app

from rlx.queue import get_redis
from rlx.runs import admin_stop, events, limits, read_token, record, runs_db, sandboxes, verifier_wall
from rlx.runs.batch import after_run
from rlx.runs.launch import stop_key
from rlx.runs.record import FAILED, FINISHED, RUNNING, STOPPED, RunRecord
from rlx.runs.egress import egress_for, route_litellm_through
from rlx.runs.agents import needs_model
from rlx.runs.models import ModelError, check_endpoint_live, take_secret
from rlx.runs.failures import INFRASTRUCTURE, clean, failure_from_text, failure_of
from rlx.runs.feed import TrialFeed
from rlx.runs.judge_run import judge_for
from rlx.runs.task_vars import seal_task_config, task_variables
from rlx.runs.router_prices import ServedBy, router_prices
from rlx.runs.usage import RouterRun, run_usage, with_judge
from rlx.runs.taskfiles import copy_task
from rlx.runs.walls import read_walls
from rlx.runs.worker_env import drop_rollout_secrets

log = logging.getLogger("rlx.runs")
STOP_POLL_SEC = 0.5
MAX_TURNS = 30  # terminus-2 episodes per run: a model that never says "done" still ends
MODEL_CALL_TIMEOUT = 90  # seconds for one model answer (RLX_MODEL_CALL_TIMEOUT, 1-600, for an operator or a test)
# litellm would fetch its price list from GitHub at import; workers may have no internet.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def run_rollout(run_id: str) -> dict:
    """The RQ job. Returns a short summary; the record in the store is the full answer."""
    app = current_app
    store, source = app.extensions["rlx.store"], app.extensions["rlx.source"]
    redis = get_redis()
    run = record.load(store, run_id)
    if run is None:
        raise LookupError(f"run {run_id} has no record")
    if run.status != record.QUEUED:
        return {"status": run.status}  # stopped before it started, or already handled
    admin_asked = admin_stop.watcher(run.id)
    drop_rollout_secrets()  # this work horse's own environment: nothing a task could ask Harbor for
    scratch = relay = judge = use = None
    try:
        run.status, run.started_at = RUNNING, record.now_iso()
        run.provenance = provenance(run)
        _save(store, redis, run)
        scratch = Path(tempfile.mkdtemp(prefix=f"rlx-run-{run_id}-", dir=app.config["RLX"].cache_dir))
        if admin_asked():  # asked while it was queued
            raise _Stopped(admin_stop.OUTCOME)
        task = _copy_task(run, source, store, redis, scratch / "task")
        seal_task_config(task, task_variables(run))  # Harbor gets no template to fill from our environment
        agent, installed, use = _agent_config(run, redis, scratch)
        relay = installed.relay if installed else None
        judge = judge_for(run, redis, app.config["RLX"], egress_for(app))
        read_only = (installed.read_only if installed else []) + (judge.read_only if judge else [])
        environment = _environment_config(run, redis, read_only, installed.address_space_mb if installed else None)
        result = asyncio.run(_drive(run, task, agent, environment, store, redis, admin_asked, judge))
        _apply_result(run, result, relay, use, redis)
    except _Stopped as stopped:
        run.status, run.outcome = STOPPED, str(stopped) or "Stopped by its owner."
    except Exception as exc:  # every failure is the record's to tell, in a sentence
        log.warning("run %s failed", run_id, exc_info=True)
        run.status = FAILED
        run.error_type, run.outcome = failure_of(exc)
    finally:
        if use is not None and not run.usage and use.served.calls:
            _note_usage(run, None, relay, use, redis)  # stopped or failed after spending: still counted
        if relay is not None:
            relay.stop()  # the key goes with it
        if judge is not None:
            run.judge_calls = judge.calls
            _note_judge_usage(run, judge, redis)
            judge.stop()
        _note_walls_quietly(run, store)
        _end(run, store, redis, scratch)
    return {"status": run.status, "reward": run.reward}


def _note_walls_quietly(run: RunRecord, store) -> None:
    try:  # a run shorter than one poll: its last record carries the sentence
        note_walls(run, store, None, save=False)
    except Exception:
        log.warning("run %s: its limits could not be read", run.id, exc_info=True)


def _end(run: RunRecord, store, redis, scratch: Path | None) -> None:
    """Whatever else failed (a full disk, Redis gone), the slot is given back and every step below is tried."""
    run.finished_at = record.now_iso()
    steps = [
        lambda: _take_token_back(run, redis),
        lambda: read_token.forget(redis, run.id),  # a run stopped before its task was copied
        lambda: scratch and shutil.rmtree(scratch, ignore_errors=True),
        # The slot before the last record: whoever sees the run ended (a page, a test) finds its slot free.
        lambda: limits.release_slot(redis, limits.slot_owner(run) or "-", run.id),
        lambda: _save_last(store, redis, run),
        lambda: events.publish(redis, run.id, "end", status=run.status, outcome=run.outcome),
        lambda: events.archive(redis, store, run.id),
        lambda: after_run(store, redis, run),
    ]
    for step in steps:
        try:
            step()
        except Exception:
            log.warning("run %s: a step of its ending failed", run.id, exc_info=True)


def _save_last(store, redis, run: RunRecord) -> None:
    """The run's last word. The space it reserved when it started is given back first, so a store that filled
    up meanwhile still takes this record; said as an infrastructure error if it was the store that failed."""
    record.release_space(store, run.id)
    try:
        _save(store, redis, run)
    except Exception as exc:
        error_type, sentence = failure_of(exc)
        if error_type != INFRASTRUCTURE:
            raise
        run.status, run.error_type, run.outcome = FAILED, error_type, sentence
        _save(store, redis, run)


class _Stopped(Exception):
    pass


def _copy_task(run: RunRecord, source, store, redis, target: Path) -> Path:
    """The task's files. A private or gated dataset's are read with the visitor's token, taken from Redis now,
    and only while the Hub still lets that token open the dataset: access is checked again at the start."""
    if not run.private_dataset:
        return copy_task(source, store, run.env_id, run.ref, run.revision, target)
    from rlx.auth.shelf import shelf_at
    from rlx.sources.errors import AccessDenied, RepoNotFound

    handed = read_token.take(redis, run.id)
    if not handed:
        raise read_token.LostAccess(f"This run's permission to read {run.env_id} expired while it waited for a "
                                    "worker; start it again.")
    lost = read_token.LostAccess(f"You no longer have access to {run.env_id} on the Hub, so the run was not "
                                 "started.")
    try:
        token, shelf = handed
        source.repo_info("dataset", run.env_id, token=token)
        return copy_task(source, shelf_at(shelf), run.env_id, run.ref, run.revision, target, token=token)
    except (RepoNotFound, AccessDenied):
        raise lost from None


def _agent_config(run: RunRecord, redis, scratch: Path):
    """Harbor's AgentConfig, for an installed agent its relay and read-only folders (rlx/runs/installed_config.py),
    and where its model is reached (ModelUse, for its cost); None for each it does not have.
    terminus-2's key goes into this work horse's own environment (RQ forks one per job), where litellm reads it;
    an installed agent's stays in its relay. Never into the config Harbor writes to disk, never into the sandbox.
    Every connection to the endpoint, from the /models check to the last model call, is judged when it is made
    (the name may have been re-pointed at a private address since the form was checked)."""
    from harbor.models.trial.config import AgentConfig

    if not needs_model(run.agent):
        return AgentConfig(name=run.agent), None, None
    secret = take_secret(redis, run.id)
    if not secret or not run.model:
        raise ModelError(f"{run.agent} needs a model, and this run's model settings have expired; start it again.")
    endpoint, egress = secret["endpoint"], egress_for(current_app)
    check_endpoint_live(endpoint, secret.get("key"), run.model, egress)
    if run.agent != "terminus-2":
        installed = _installed(run, secret, egress, scratch)
        return installed.agent, installed, ModelUse(endpoint, installed.relay.served)
    use = ModelUse(endpoint, ServedBy())
    route_litellm_through(egress, use.served)
    os.environ["OPENAI_API_KEY"] = secret.get("key") or "none"
    return AgentConfig(name="terminus-2", model_name=f"openai/{run.model}", base_url=endpoint, kwargs={
        "max_turns": MAX_TURNS, "record_terminal_session": False, "enable_summarize": False,
        "llm_call_kwargs": {"timeout": _model_call_timeout()},  # a hung endpoint fails the call, not the whole run
        "model_info": {"max_input_tokens": 128000, "max_output_tokens": 8192,
                       "input_cost_per_token": 0.0, "output_cost_per_token": 0.0}}), None, use


@dataclass
class ModelUse:
    """Where a run's model was reached, and which providers the answers said served it (for its cost)."""
    endpoint: str
    served: ServedBy


def _installed(run: RunRecord, secret: dict, egress, scratch: Path):
    from rlx.runs.installed_config import installed_run

    return installed_run(run.agent, run.model, secret, current_app.config["RLX"].agents_dir,
                         egress, float(_model_call_timeout()))


def _router_run(use: ModelUse | None, redis) -> RouterRun | None:
    """For a run through Inference Providers' router, its prices (read from the configured router alone, never
    from an endpoint a visitor gave) and who served it; None for any other run."""
    router_url = current_app.config["RLX"].hf_router_url.rstrip("/")
    if use is None or use.endpoint.rstrip("/") != router_url:
        return None
    return RouterRun(router_prices(redis, router_url, egress_for(current_app)), use.served.providers())


def _model_call_timeout() -> int:
    try:
        return min(600, max(1, int(os.environ.get("RLX_MODEL_CALL_TIMEOUT", MODEL_CALL_TIMEOUT))))
    except ValueError:
        return MODEL_CALL_TIMEOUT


def _environment_config(run: RunRecord, redis, read_only: list | None = None, address_space_mb: int | None = None):
    """Where the trial runs. An HF Sandbox gets the visitor's token lent to this work horse only (see
    rlx/runs/hf_sandbox_env.py), never through Harbor's config, which is written to disk."""
    if run.sandbox != sandboxes.HF:
        environment = sandboxes.environment_config(run, None)
        if read_only:
            environment.kwargs["read_only"] = read_only
        if address_space_mb:  # an installed agent whose runtime reserves more than it uses
            environment.kwargs["address_space_mb"] = address_space_mb
        return environment
    token = sandboxes.read_token(redis, run.id)  # kept until the run ends: a killed horse's run is cleaned up with it
    environment = sandboxes.environment_config(run, token, current_app.config["RLX"].hf_sandbox_start_s)
    from rlx.runs.hf_sandbox_env import lend

    sandboxes.bound_hub_calls(min(current_app.config["RLX"].hf_sandbox_start_s, 60.0))
    lend(run.id, token, lambda kind, **data: events.publish(redis, run.id, kind, **data))
    return environment


def _take_token_back(run: RunRecord, redis) -> None:
    if run.sandbox == sandboxes.HF:
        from rlx.runs.hf_sandbox_env import take_back

        take_back(run.id)
        sandboxes.take_token(redis, run.id)


async def _drive(run: RunRecord, task: Path, agent, environment, store, redis, admin_asked, judge=None):
    from harbor.models.trial.config import TaskConfig, TrialConfig, VerifierConfig
    from harbor.trial.trial import Trial

    config = TrialConfig(
        task=TaskConfig(path=task), trials_dir=record.run_dir(store, run.id), trial_name="trial",
        agent=agent,
        environment=environment,
        verifier=VerifierConfig(),
    )
    trial = await Trial.create(config)
    feed = TrialFeed(redis, run.id, record.trial_dir(store, run.id))
    feed.attach(trial)
    verifier_wall.attach(trial, trial.agent_environment)  # before the judge's hook: its forwarder must survive
    if judge is not None:
        judge.attach(trial)
    running = asyncio.create_task(trial.run())
    feed.start()
    try:
        return await _until_done_or_stopped(run, running, redis, admin_asked, store)
    finally:
        await feed.stop()


async def _until_done_or_stopped(run: RunRecord, running, redis, admin_asked, store):
    while not running.done():
        await asyncio.wait({running}, timeout=STOP_POLL_SEC)
        note_walls(run, store, redis)
        if running.done():
            break
        by_owner = redis.exists(stop_key(run.id))
        if by_owner or admin_asked():  # the owner's Stop (Redis), or an admin's (the settings file)
            running.cancel()
            try:
                await running
            except BaseException:  # Harbor records the cancel and tears the sandbox down
                pass
            raise _Stopped("Stopped by its owner." if by_owner else admin_stop.OUTCOME)
    return running.result()


def note_walls(run: RunRecord, store, redis, save: bool = True) -> None:
    """Which limits the sandbox holds (rlx/runs/walls.py), into the record once the sandbox has said so."""
    if run.provenance.get("limits"):
        return
    sentence = read_walls(record.trial_dir(store, run.id))
    if sentence:
        run.provenance["limits"] = sentence
        if save:
            _save(store, redis, run)


def _note_usage(run: RunRecord, agent_result, relay, use: ModelUse | None, redis) -> None:
    try:  # a price list that cannot be read leaves the cost unknown, never the run failed
        router = _router_run(use, redis)
    except Exception:
        log.warning("run %s: the router's prices could not be read", run.id, exc_info=True)
        router = RouterRun(None)
    run.usage = run_usage(agent_result, relay, run.model, router, use.served.calls if use else 0)


def _note_judge_usage(run: RunRecord, judge, redis) -> None:
    relay = judge.relay
    try:  # a judge on the router is priced from its list, as the agent's model is
        router = _router_run(ModelUse(relay.endpoint, relay.served), redis)
    except Exception:
        log.warning("run %s: the router's prices could not be read for its judge", run.id, exc_info=True)
        router = RouterRun(None)
    run.usage = with_judge(run.usage or {}, relay.usage(), judge.calls, run.judge, router)


def _apply_result(run: RunRecord, result, relay=None, use: ModelUse | None = None, redis=None) -> None:
    verifier = result.verifier_result
    rewards = {k: float(v) for k, v in ((verifier.rewards if verifier else None) or {}).items()
               if isinstance(v, (int, float))}
    exception = result.exception_info
    run.timings = _timings(result)
    _note_usage(run, result.agent_result, relay, use, redis)
    if rewards:
        run.scored, run.rewards = True, rewards
    if exception is not None:
        infrastructure = failure_from_text(exception.exception_type, exception.exception_message or "")
        if infrastructure is not None:
            run.status, (run.error_type, run.outcome) = FAILED, infrastructure
            return
        run.error_type = exception.exception_type
        run.outcome = clean(f"{_explain(exception.exception_type)} {exception.exception_message[:500]}".strip())
    if rewards:
        run.status = FINISHED
        if exception is None:
            run.outcome = "Scored by the task's verifier."
    elif exception is None or exception.exception_type in ENDED_UNSCORED:
        run.status = FINISHED
        run.outcome = " ".join(filter(None, [run.outcome, "Not scored: the verifier wrote no reward."]))
    else:
        run.status = FAILED


# The run went to its end (agent, then verifier) without a reward: "not scored", which is not a failure of ours.
ENDED_UNSCORED = {"AgentTimeoutError", "VerifierTimeoutError", "RewardFileNotFoundError", "RewardFileEmptyError",
                  "VerifierOutputParseError", "JudgeNotReached"}


def _timings(result) -> dict[str, float]:
    out = {}
    for name in ("environment_setup", "agent_setup", "agent_execution", "verifier"):
        phase = getattr(result, name, None)
        if phase is not None and phase.started_at and phase.finished_at:
            out[name] = round((phase.finished_at - phase.started_at).total_seconds(), 3)
    if result.started_at and result.finished_at:
        out["total"] = round((result.finished_at - result.started_at).total_seconds(), 3)
    return out


_EXPLAINED = {
    "AgentTimeoutError": "The agent ran past the task's time limit and was stopped.",
    "VerifierTimeoutError": "The verifier ran past its time limit and was stopped.",
    "EnvironmentStartTimeoutError": "The sandbox took too long to start.",
    "RewardFileNotFoundError": "The verifier finished without writing a reward.",
    "RewardFileEmptyError": "The verifier wrote an empty reward file.",
    "CancelledError": "The run was cancelled.",
    "JudgeNotReached": "",  # its sentence says it all
}


def _explain(exception_type: str) -> str:
    return _EXPLAINED.get(exception_type, f"{exception_type}:")


def _save(store, redis, run: RunRecord) -> None:
    # The index first: whoever sees the record end (a page, a test) then finds it in the community lists too.
    runs_db.upsert(store, run)
    record.save(store, run)
    events.publish(redis, run.id, "status", status=run.status, outcome=run.outcome,
                   reward=run.reward, scored=run.scored, rewards=run.rewards or {})


def provenance(run: RunRecord) -> dict:
    def version(name: str) -> str | None:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return None

    return {"harbor": version("harbor"), "rlx": version("rlx"), "litellm": version("litellm"),
            "python": platform.python_version(), "sandbox": sandboxes.describe(run),
            "bwrap": shutil.which("bwrap") and _bwrap_version() if run.sandbox == sandboxes.LOCAL else None,
            "huggingface_hub": version("huggingface-hub") if run.sandbox == sandboxes.HF else None}


def _bwrap_version() -> str | None:
    import subprocess

    try:
        return subprocess.run(["bwrap", "--version"], capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
