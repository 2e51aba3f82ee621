"""How a rollout ended, in one vocabulary every page and export shares: solved, failed, infrastructure error,
unobserved, stopped (and pending while it runs), each with the reason beside it.

Why one module: a reward of 0 from a verifier that could not install its tools, a run whose sandbox never
started, and an agent that simply got it wrong are three different facts. Only `failed` is the agent's failure;
an infrastructure error (the sandbox, the verifier or our server failed) and an unobserved run (no reward was
written) say nothing about the agent, so leaderboards and compares leave them out of solve rates.
"""

from __future__ import annotations

from dataclasses import dataclass

from rlx.runs.failures import INFRASTRUCTURE as INFRA_TYPE

SOLVED, FAILED, INFRASTRUCTURE, UNOBSERVED, STOPPED, PENDING = (
    "solved", "failed", "infrastructure", "unobserved", "stopped", "pending")
KINDS = (SOLVED, FAILED, INFRASTRUCTURE, UNOBSERVED, STOPPED)
LABELS = {SOLVED: "solved", FAILED: "failed", INFRASTRUCTURE: "infrastructure error", UNOBSERVED: "unobserved",
          STOPPED: "stopped", PENDING: "not ended yet"}
SOLVED_AT = 1.0  # a reward at or above this solves the task (the verifier's full mark)
# The verifier itself broke (it ran past its limit, wrote a reward nobody can read): the task's fault, not the agent's.
VERIFIER_BROKE = {"VerifierTimeoutError", "VerifierOutputParseError", "RewardFileEmptyError"}
# A run that ended failed because of the agent's own doing, rather than the machinery around it.
AGENT_FAULTS = {"ContextLengthExceededError", "OutputLengthExceededError"}
NO_REWARD = "No reward was written by the verifier."


@dataclass(frozen=True)
class Outcome:
    kind: str
    reason: str

    @property
    def label(self) -> str:
        return LABELS[self.kind]

    @property
    def counts_for_agent(self) -> bool:
        """Whether this rollout says anything about the agent (it goes into solve rates)."""
        return self.kind in (SOLVED, FAILED)


def outcome_of(status: str, scored: bool, reward: float | None, error_type: str | None,
               outcome: str | None) -> Outcome:
    """The one rule, from a run's fields (a record or an index row give the same answer)."""
    said = (outcome or "").strip()
    if status in ("queued", "running"):
        return Outcome(PENDING, said or status)
    if status == "stopped":
        return Outcome(STOPPED, said or "Stopped.")
    if scored and reward is not None:
        if reward >= SOLVED_AT:
            return Outcome(SOLVED, f"reward {reward:g}")
        return Outcome(FAILED, f"reward {reward:g}" + (f": {said}" if said and not said.startswith("Scored") else ""))
    if status == "failed":
        if error_type in AGENT_FAULTS:
            return Outcome(FAILED, said or error_type)
        return Outcome(INFRASTRUCTURE, said or "The run failed before a reward was written.")
    if error_type in VERIFIER_BROKE or error_type == INFRA_TYPE:
        return Outcome(INFRASTRUCTURE, said or "The verifier failed.")
    return Outcome(UNOBSERVED, said or NO_REWARD)


def of_run(run) -> Outcome:
    """For a RunRecord."""
    return outcome_of(run.status, run.scored, run.reward, run.error_type, run.outcome)


def of_row(row: dict) -> Outcome:
    """For a row of the runs index."""
    return outcome_of(row["status"], bool(row["scored"]), row["reward"], row.get("error_type"), row.get("outcome"))
