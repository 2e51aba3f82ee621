"""The admin's rollout settings, applied where runs start: the switch, the hourly limit per visitor, the agents.

Every answer reads the settings file through the process's SettingsFile (a stat per request, a read when the
file changed), so an admin's save holds within a request on every host:

- switched off (`rollouts.enabled: false`): run and batch forms are replaced by a sentence, their POSTs answer
  503 with Retry-After, and running batches start no more runs;
- `per_visitor_per_hour`: rollouts a visitor may start per hour (a batch counts once), counted in Redis per
  signed-in account, else per address (a cookie anyone can mint would not hold); over it, 429 with Retry-After;
- `agents`: only those are offered and accepted (empty: every agent the app knows);
- `judges`: the judge models a model-graded task's form offers and accepts (rlx/runs/judges.py);

and, beneath the admin's choice, this host's: an agent that is not installed here (rlx/runs/agents.py) is shown
greyed with the reason, and refused.
"""

from __future__ import annotations

import dataclasses

from flask import current_app, g, has_request_context

from rlx.runs import agents as agent_registry
from rlx.runs.judges import offer_judges
from rlx.store.settings import RolloutSettings

KNOWN_AGENTS = agent_registry.NAMES
SWITCHED_OFF = ("Rollouts are switched off on this server for now by its admins: no new run or batch starts. "
                "Every task can still be read here, or handed to your own agent over MCP.")
SWITCHED_OFF_RETRY_S = 600
HOUR_S = 3600


class RolloutRefused(Exception):
    """A start the admin's settings do not allow: the HTTP status, a sentence, and when to try again."""

    def __init__(self, status: int, message: str, retry_after: int | None = None):
        super().__init__(message)
        self.status, self.retry_after = status, retry_after


def current() -> RolloutSettings:
    return current_app.extensions["rlx.settings"].get().rollouts


def switched_off() -> str | None:
    """The sentence to show instead of a run form, or None when rollouts may start."""
    return None if current().enabled else SWITCHED_OFF


def allowed_agents() -> list[str]:
    allowed = current().agents
    return [a for a in KNOWN_AGENTS if not allowed or a in allowed]


def agent_choices(sandbox: str = agent_registry.LOCAL) -> tuple[list[str], list[list[str]]]:
    """The admin's agents split by this host: (those that can run in `sandbox`, [name, why not] for the rest)."""
    why = _availability(sandbox)
    allowed = allowed_agents()
    return [a for a in allowed if why[a] is None], [[a, why[a]] for a in allowed if why[a] is not None]


def _availability(sandbox: str) -> dict[str, str | None]:
    """The host's agents, looked at once per request: one page asks several times (the batch form's choices and
    its notes), and each time is a few stat calls per agent. Outside a request (a worker's job, whose app context
    may outlive an agent's install) they are looked at every time."""
    if not has_request_context():
        return agent_registry.availability(current_app.config["RLX"].agents_dir, sandbox)
    seen = g.setdefault("rlx_agent_availability", {})
    if sandbox not in seen:
        seen[sandbox] = agent_registry.availability(current_app.config["RLX"].agents_dir, sandbox)
    return seen[sandbox]


def batch_agent_choices(sandbox: str = agent_registry.LOCAL) -> tuple[list[str], list[list[str]]]:
    """agent_choices for a batch, which has no one task to fit: an agent made for some tasks only (mimo) is
    greyed with its reason."""
    agents, unavailable = agent_choices(sandbox)
    unfit = {a: why for a in agents if (why := agent_registry.task_reason(agent_registry.get(a), None))}
    return [a for a in agents if a not in unfit], unavailable + [[a, f"{why} A batch runs it on no task."]
                                                                for a, why in unfit.items()]


def offered_agents(sandbox: str = agent_registry.LOCAL) -> list[str]:
    """The batch form's agents."""
    return batch_agent_choices(sandbox)[0]


def unavailable_agents(sandbox: str = agent_registry.LOCAL) -> list[list[str]]:
    """The batch form's greyed agents, each with why."""
    return batch_agent_choices(sandbox)[1]


def offer(options: list) -> list:
    """The run options as the admin's settings allow them: none runnable when switched off, and the agent
    field's choices cut to the allowed agents."""
    off = switched_off()
    shown = []
    for option in options:
        agents, unavailable = agent_choices(option.key)
        if not option.can_run:
            shown.append(option)
        elif off:
            shown.append(dataclasses.replace(option, can_run=False, why_not=off, fields=[]))
        elif not agents:
            shown.append(dataclasses.replace(option, can_run=False, fields=[],
                                             why_not="None of the agents this task can run is offered on this "
                                                     "server at the moment."))
        else:
            shown.append(dataclasses.replace(option, fields=[offer_judges(_agents_cut(f, agents, unavailable))
                                                             for f in option.fields]))
    return shown


def _agents_cut(spec, agents: list[str], unavailable: list[list[str]]):
    if spec.name != "agent" or spec.type != "choice":
        return spec
    choices = [c for c in spec.choices if c in agents]
    allowed = set(agents) | {name for name, _ in unavailable}
    unfit = [pair for pair in spec.unavailable if pair[0] in allowed]  # the task's own reasons, e.g. mimo's
    return dataclasses.replace(spec, choices=choices, default=spec.default if spec.default in choices else
                               (choices[0] if choices else None),
                               unavailable=[pair for pair in unavailable if pair[0] in spec.choices] + unfit)


def check_open() -> None:
    """Raise RolloutRefused (503) when the admin has switched rollouts off."""
    if off := switched_off():
        raise RolloutRefused(503, off, SWITCHED_OFF_RETRY_S)


def check_agent(agent: str, sandbox: str = agent_registry.LOCAL) -> None:
    agents, unavailable = agent_choices(sandbox)
    why = dict(unavailable).get(agent)
    if why:
        raise RolloutRefused(400, f"The agent {agent!r} cannot run here: {why}")
    if agent not in agents:
        raise RolloutRefused(400, f"The agent {agent[:40]!r} is not offered on this server; choose one of "
                                  f"{', '.join(agents) or 'none (no agent is offered at the moment)'}.")


def count_start() -> None:
    """Count one start against the visitor's hourly limit; RolloutRefused (429) when it is used up."""
    from rlx.auth.visitor import cap_holder, visitor_key
    from rlx.http.ratelimit import over_limit

    per_hour = current().per_visitor_per_hour
    if per_hour == 0:
        raise RolloutRefused(429, "This server lets no visitor start rollouts at the moment (0 an hour); "
                                  "try again later.", HOUR_S)
    account = visitor_key()
    wait = over_limit("rollouts_per_visitor", cap_holder(), limit=f"{per_hour}/hour")
    if wait is not None:
        whose = "your account" if account else "your address"
        raise RolloutRefused(429, f"You have started {per_hour} rollouts in the last hour, the limit per visitor "
                                  f"on this server (counted for {whose}); try again in {wait} s.", wait)


def check_start(agent: str, sandbox: str = agent_registry.LOCAL) -> None:
    """Everything the admin's settings ask of a start, in order: open, the agent offered, the hourly limit."""
    check_open()
    check_agent(agent, sandbox)
    count_start()
