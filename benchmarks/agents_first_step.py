"""Installed agents: from Run to the agent's first step on the run's live page, per agent, p50 over 5 runs.

The bundled catalog (examples/), this process's app (Flask's test client) on an embedded Redis, and one real
`rlx worker` process; each agent (opencode, mini-swe-agent, pi, claude-code, codex, from what `make agents` put in
RLX_AGENTS_DIR) runs the bundled task nginx-log-summary in the local bubblewrap sandbox against the
OpenAI-compatible model stand-in (tests/stand_ins/model.py), which answers at once: the figure is this app's, the
sandbox's and the agent's own start, not a model's thinking. Each run is the run form's POST, then the run's
event stream (/r/<id>/events, the SSE the run page follows) read until its first step fragment arrives: that
arrival minus the moment before the POST. The run is followed to its end (its reward is noted), then the next
starts, one at a time on the one worker. The phases' stamps (job picked up, sandbox, agent start, end) say where
the time went, and oracle's runs (the reference solution: no model, no step shown) are the baseline.

The install cost is paid once per worker machine (`make agents`), never per run: while the runs go, a watcher
samples the worker's process tree every 50 ms for an installer (npm, npx, pip, uv, curl, wget, apt-get), each
one counted in the phase it was seen (before the agent started: the task's own Dockerfile lines; after), and the
agents folder's files (path, size, mtime) are compared before and after. (`make agents` itself is not rerun
here: the folder is shared by every checkout on this machine.)

`python -m benchmarks.agents_first_step [--runs N] [--agents a,b]` runs it alone, writes its figures to
agents_first_step.json and its section of RESULTS.md. Not run by `make bench` (it takes ten minutes of sandboxes);
`make bench`'s rewrite of RESULTS.md draws the section again from the kept JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

from benchmarks import machine
from benchmarks.markdown import num, table
from benchmarks.stats import median

ROOT = Path(__file__).resolve().parents[1]
KEPT = Path(__file__).with_name("agents_first_step.json")
RESULTS = Path(__file__).with_name("RESULTS.md")
HEADING = "## Installed agents: Run → the agent's first step"
ENV_ID = "rlx-examples/terminal-basics"
TASK = f"/t/{ENV_ID}/nginx-log-summary"
AGENTS = ("opencode", "mini-swe-agent", "pi", "claude-code", "codex")
KEY = "sk-bench-placeholder-0123456789"
INSTALLERS = {"npm", "npx", "pip", "pip3", "uv", "uvx", "curl", "wget", "apt-get", "apt", "dpkg"}
RUN_TIMEOUT_S = 300


def _script(agent: str) -> list[dict]:
    """What the stand-in answers: the task's reference commands as one bash call, then the agent's way to stop."""
    from tests.stand_ins.model import answer, bash

    solution = (ROOT / "examples" / "datasets" / ENV_ID / "tasks" / "nginx-log-summary" / "solution" / "solve.sh")
    solve = bash(f"bash <<'SOLUTION'\n{solution.read_text()}\nSOLUTION", say="I will write the report.")
    if agent == "mini-swe-agent":
        return [solve, bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", say="Done.")]
    if agent == "claude-code":
        return [solve, answer("The report is written.")]
    return [solve]


def measure(runs: int = 5, agents: tuple[str, ...] = AGENTS) -> dict:
    if shutil.which("bwrap") is None:
        return {"error": "bubblewrap (`bwrap`) is not installed: no rollout can run here."}
    from rlx.config import Config
    from rlx.queue.embedded import EmbeddedRedis
    from rlx.runs import agents as registry

    agents_dir = Config.__dataclass_fields__["agents_dir"].default
    missing = {a: why for a in agents if (why := registry.unavailable_reason(registry.get(a), agents_dir))}
    root = Path(tempfile.mkdtemp(prefix="rlx-bench-agents-"))
    redis_server = EmbeddedRedis(root / "redis")
    try:
        app, worker, redis = _start(root, redis_server.start())
        try:
            size = _size(agents_dir)
            before = _listing(agents_dir)
            watcher = _InstallWatcher(worker.pid).start()
            baseline = _agent_runs(app, "oracle", runs, watcher)
            per_agent = {a: _agent_runs(app, a, runs, watcher) for a in agents if a not in missing}
            watcher.stop()
            changed = _changed(before, _listing(agents_dir))
        finally:
            worker.terminate()
            worker.wait(30)
    finally:
        redis_server.stop()
        shutil.rmtree(root, ignore_errors=True)
    return {"date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "runs_per_agent": runs,
            "commit": machine.tree(),
            "agents": per_agent, "oracle": baseline, "not_installed": missing, "nproc": os.cpu_count(),
            "install": {"folder": str(agents_dir), "size": size, "samples": watcher.samples,
                        "files_changed": changed[:20],
                        "n_files_changed": len(changed), "files": len(before)}}


def _start(root: Path, redis_url: str):
    """The app and its worker on a fresh store: the bundled terminal task indexed, rollouts limited only loosely
    (25 runs from one visitor in a few minutes), loopback models allowed (the stand-in)."""
    from rlx import create_app
    from rlx.config import Config
    from rlx.queue.connection import connect
    from tests.conftest import index_now
    from tests.processes import config_env, start_worker

    env = {"STORAGE_DIR": str(root / "store"), "RLX_CACHE_DIR": str(root / "cache"), "REDIS_URL": redis_url,
           "RLX_SOURCE": str(ROOT / "examples"), "SESSION_SECRET": "bench-secret"}
    app = create_app(Config.from_env(env))
    app.config.update(RLX_ALLOW_LOOPBACK_MODELS=True, RLX_RATE_LIMITS={"runs": "1000/hour"})
    settings = app.extensions["rlx.store"].settings_path
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"rollouts": {"per_visitor_per_hour": 1000}}))
    index_now(app, ENV_ID)
    redis = connect(redis_url)
    worker, _ = start_worker({**os.environ, **config_env(app.config["RLX"], redis_url, RLX_ALLOW_LOOPBACK_MODELS="1",
                                                        RLX_CACHE_DIR=env["RLX_CACHE_DIR"])}, redis, "rollouts")
    return app, worker, redis


def _agent_runs(app, agent: str, runs: int, watcher: "_InstallWatcher") -> dict:
    """`runs` runs of one agent; oracle (no model, no step shown) is the baseline of the app's and sandbox's part."""
    from tests.stand_ins.model import ModelStandIn

    model = ModelStandIn(_script(agent), key=KEY).start()
    try:
        samples = [_one_run(app, agent, None if agent == "oracle" else model, watcher) for _ in range(runs)]
    finally:
        model.stop()
    firsts = [s["first_step_s"] for s in samples if s["first_step_s"] is not None]
    return {"runs": samples, "p50_s": round(median(firsts), 2) if firsts else None,
            "min_s": min(firsts, default=None), "max_s": max(firsts, default=None),
            "rewarded": sum(1 for s in samples if s["reward"] == 1.0)}


def _one_run(app, agent: str, model, watcher: "_InstallWatcher") -> dict:
    """One POST of the run form, then its live stream read to the end; seconds from just before the POST."""
    client = app.test_client()
    load = os.getloadavg()[0]
    posted = time.time()
    response = client.post(f"{TASK}/run", headers={"Origin": "http://localhost"}, data={
        "option": "local", "agent": agent, "visibility": "private", "model": model.model if model else "",
        "endpoint": model.url if model else "", "api_key": KEY if model else ""})
    match = re.fullmatch(r"/r/([a-z0-9]{12})", response.headers.get("Location", ""))
    if response.status_code != 303 or not match:
        raise RuntimeError(f"the run form answered {response.status_code}: {response.get_data(as_text=True)[:300]}")
    run_id = match.group(1)
    first_step = _first_step_arrival(client, run_id)
    ended = _ended(app, run_id, posted)
    agent_from = posted + (ended["agent_start_s"] if ended["agent_start_s"] is not None else 0)
    during = [(at, command) for at, command in watcher.seen if posted <= at <= posted + (ended["end_s"] or 0)]
    return {"run": run_id, "first_step_s": None if first_step is None else round(first_step - posted, 2),
            "load": round(load, 2), "installers_before_agent": [c for at, c in during if at < agent_from],
            "installers_agent_phase": [c for at, c in during if at >= agent_from]} | ended


def _first_step_arrival(client, run_id: str) -> float | None:
    """When the run page's event stream delivers the first step fragment (None: the run ended without one)."""
    deadline = time.monotonic() + RUN_TIMEOUT_S
    seen = None
    response = client.get(f"/r/{run_id}/events", buffered=False)
    try:
        for chunk in response.response:  # one server-sent event per chunk, as the view yields them
            text = chunk.decode() if isinstance(chunk, bytes) else chunk
            if seen is None and text.startswith("event: event") and 'class="run-ev run-ev-step"' in text:
                seen = time.time()
            if text.startswith("event: end") or time.monotonic() > deadline:
                break
    finally:
        response.close()
    return seen


def _ended(app, run_id: str, posted: float) -> dict:
    """The ended run's reward and its phases, in seconds after the POST (from the worker's event stamps)."""
    from rlx.jobs.settle import settle
    from rlx.queue import get_redis
    from rlx.runs import events, record

    with app.app_context():
        store = app.extensions["rlx.store"]
        deadline = time.monotonic() + RUN_TIMEOUT_S
        while (run := settle(record.load(store, run_id))).active and time.monotonic() < deadline:
            time.sleep(0.2)
        stream = [e for _id, e in events.read(get_redis(), run_id, count=events.MAX_EVENTS)]
    phases = {str(e["phase"]).lower(): round(e["at"] - posted, 2) for e in stream if e.get("kind") == "phase"}
    picked = next((e["at"] for e in stream if e.get("kind") == "status" and e.get("status") == "running"), None)
    return {"status": run.status, "reward": run.reward, "outcome": None if run.reward == 1.0 else run.outcome,
            "job_start_s": None if picked is None else round(picked - posted, 2),
            "sandbox_s": phases.get("environment-start"), "agent_start_s": phases.get("agent-start"),
            "agent_end_s": phases.get("agent-end"),
            "end_s": round(stream[-1]["at"] - posted, 2) if stream else None}


class _InstallWatcher:
    """Samples the worker's descendants for an installer's process, every 50 ms, until stopped; each run then
    sorts what was seen during it by phase: before its agent started (the task's Dockerfile, replayed by the
    sandbox) or after (what an agent would install at run time)."""

    def __init__(self, pid: int):
        self.pid, self.samples = pid, 0
        self.seen: list[tuple[float, str]] = []  # (when, command line) of each installer process, once
        self._known: set[tuple[int, str]] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def start(self) -> "_InstallWatcher":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)

    def _watch(self) -> None:
        from tests.processes import descendants_of

        while not self._stop.wait(0.05):
            self.samples += 1
            for pid in descendants_of(self.pid):
                try:
                    argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                except OSError:
                    continue
                names = {os.path.basename(a.decode(errors="replace")) for a in argv[:2] if a}
                command = " ".join(a.decode(errors="replace") for a in argv).strip()[:200]
                if names & INSTALLERS and (pid, command) not in self._known and len(self.seen) < 200:
                    self._known.add((pid, command))
                    self.seen.append((time.time(), command))


def _listing(folder: Path) -> dict[str, tuple[int, int]]:
    listing = {}
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            path = os.path.join(dirpath, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            listing[path] = (info.st_size, info.st_mtime_ns)
    return listing


def _changed(before: dict, after: dict) -> list[str]:
    return sorted(path for path in before.keys() | after.keys() if before.get(path) != after.get(path))


def _size(agents_dir: Path) -> str:
    done = subprocess.run(["du", "-sh", "--dereference-args", str(agents_dir)], capture_output=True, text=True)
    return (done.stdout.split() or ["?"])[0]


# ---------------------------------------------------------------------------------------------- report


def kept() -> dict | None:
    try:
        return json.loads(KEPT.read_text())
    except (OSError, ValueError):
        return None


def render(r: dict | None = None) -> str | None:
    """This benchmark's section of RESULTS.md, from a run's figures or the kept ones."""
    a = (r or {}).get("agents_first_step") or kept()
    if not a:
        return None
    if "error" in a:
        return f"{HEADING}\n\nNot measured: {a['error']}\n"
    measured = {**a["agents"], "oracle (baseline)": a["oracle"]}
    every = [s for x in measured.values() for s in x["runs"]]
    loads = [s["load"] for s in every]
    return (f"{HEADING}\n\n"
            f"`python -m benchmarks.agents_first_step` ({a['date']}, commit {a.get('commit', '?')}; {a['nproc']} "
            f"cores shared with other work, load average {min(loads, default=0):.1f}–{max(loads, default=0):.1f} "
            f"at the runs' starts): each agent {a['runs_per_agent']} times on the bundled task nginx-log-summary, one "
            "run at a time on one `rlx worker`, in the local bubblewrap sandbox against the model stand-in (it "
            "answers at once). Seconds from just before the run form's POST to the first step fragment on the run's "
            "event stream (/r/&lt;id&gt;/events, what the run page shows); the other columns are medians of the "
            "worker's event stamps from the same moment: the job picked up, the sandbox starting, the agent "
            "started, the run's last event. Oracle (the reference solution, which shows no step) is the baseline: "
            "what the app and the sandbox cost before any agent starts.\n\n"
            + table(["agent", "first step p50 (s)", "min", "max", "job running", "sandbox starting",
                     "agent started", "run ended", "reward 1"], [_row(name, x) for name, x in measured.items()])
            + "".join(f"\n- {name}: not measured, {why}" for name, why in a.get("not_installed", {}).items())
            + _install_sentence(a, every))


def _install_sentence(a: dict, every: list[dict]) -> str:
    install = a["install"]
    before = sorted({c for s in every for c in s["installers_before_agent"]})
    during = sorted({c for s in every for c in s["installers_agent_phase"]})
    parts = sorted({Path(p).relative_to(install["folder"]).parts[0] for p in install["files_changed"]})
    used = {"mini-swe-agent", "npm"}  # where the five agents live in the folder (rlx/runs/agents.py)
    text = (f"\n**Install cost, once per worker, never per run**: `make agents` (deploy/agents/install.sh) fills the "
            f"agents folder ({install['size']}; about 4 min the first time on this machine, per docs/OPERATIONS.md). "
            f"During the {len(every)} runs, {install['samples']:,} samples of the worker's process tree (every 50 ms) "
            f"saw **{len(during)} installer processes while an agent ran** (npm, npx, pip, uv, curl, wget, apt-get)")
    text += f": {'; '.join(during[:3])}" if during else ""
    text += f"; before the agents started, {len(before)} distinct ones"
    text += f" ({'; '.join(before[:3])}: the task Dockerfile's RUN line, which the sandbox replays)" if before else ""
    text += f". Of the agents folder's {install['files']:,} files, {install['n_files_changed']} changed meanwhile"
    if parts:
        whose = "another install into the shared folder" if not set(parts) & used else "see agents_first_step.json"
        text += f" (under {', '.join(p + '/' for p in parts)}: {whose})"
    return text + ".\n"


def _row(name: str, x: dict) -> list[str]:
    def mid(key: str) -> str:
        return num(median([s[key] for s in x["runs"] if s.get(key) is not None]), 1)

    first = f"**{num(x['p50_s'], 1)}**" if x["p50_s"] is not None else "— (no step)"
    return [name, first, num(x["min_s"], 1), num(x["max_s"], 1), mid("job_start_s"), mid("sandbox_s"),
            mid("agent_start_s"), mid("end_s"), f"{x['rewarded']} of {len(x['runs'])}"]


def write_section(section: str, path: Path = RESULTS) -> None:
    """Put the section into RESULTS.md in place of its last version, else before the sitemap's section."""
    text = path.read_text()
    start = text.find(HEADING)
    if start >= 0:
        end = text.find("\n## ", start + len(HEADING))
        text = text[:start] + section + (text[end + 1:] if end >= 0 else "")
    else:
        at = text.find("## m. ")
        text = text[:at] + section + "\n" + text[at:] if at >= 0 else text.rstrip() + "\n\n" + section
    path.write_text(text)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--agents", default=",".join(AGENTS), help="comma-separated, from " + ", ".join(AGENTS))
    args = parser.parse_args(argv)
    figures = measure(args.runs, tuple(a for a in args.agents.split(",") if a in AGENTS))
    KEPT.write_text(json.dumps(figures, indent=1) + "\n")
    write_section(render({"agents_first_step": figures}))
    print(json.dumps({a: {k: v for k, v in x.items() if k != "runs"} for a, x in figures.get("agents", {}).items()},
                     indent=1))


if __name__ == "__main__":
    main()
