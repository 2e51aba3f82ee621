"""verl and SkyRL rows: a prompt chat, `data_source` (which scorer grades it), `ability`, `reward_model` or
SkyRL's `reward_spec` (ground truth withheld), `extra_info`, and SkyRL's `env_class`."""

from __future__ import annotations

from rlx.adapters import blocks as b
from rlx.adapters.rows.processors import common as c
from rlx.adapters.rows.processors.base import Processor, RowProblem, RowTask

# Fields that hold answers under names the shared rule does not catch (SkyRL-SQL's gold query and output).
OWN_ANSWER_KEYS = ("sql", "output_seq", "oracles")

# verl's default_compute_score routes on data_source; these prefixes name its built-in scorers.
SCORERS = (
    ("openai/gsm8k", "GSM8K rule: the number after ####"),
    ("lighteval/math", "MATH rule: the boxed answer, normalised"),
    ("digitalearthai/math", "MATH rule: the boxed answer, normalised"),
    ("math_dapo", "DAPO math rule: the final answer compared"),
    ("aime", "DAPO math rule: the final answer compared"),
    ("numina_", "Prime math rule: the final answer compared"),
    ("codecontests", "Sandbox code execution against tests"),
    ("apps", "Sandbox code execution against tests"),
    ("codeforces", "Sandbox code execution against tests"),
    ("taco", "Sandbox code execution against tests"),
    ("hiyouga/geometry3k", "Geometry3K rule: the boxed answer"),
    ("searchr1_", "Search-R1 rule: exact match of the answer"),
)


def scorer_for(data_source: str) -> str:
    low = data_source.lower()
    for prefix, scorer in SCORERS:
        if low.startswith(prefix):
            return scorer
    return "a custom reward function (reward.custom_reward_function) chosen for this data source"


class VerlProcessor(Processor):
    """The policy gets `prompt` alone (verl's RLHFDataset renders it through the chat template; SkyRL's
    environment starts from it). `reward_model` / `reward_spec` and `extra_info` go to the reward function or
    the environment, never to the policy: only their style, split and index are shown."""

    key = "verl"
    label = "verl / SkyRL"
    kind = "verl"
    agent_fields = ("prompt",)
    label_fields = ("data_source", "ability", "env_class", "agent_name", "reward_model.style", "reward_spec.method",
                    "extra_info.split", "extra_info.index", "extra_info.difficulty", "extra_info.category")
    withheld_reasons = {
        "reward_model": "passed to the reward function with the reply (its ground truth), never to the policy",
        "reward_spec": "passed to the SkyRL environment (its ground truth), never to the policy",
        "extra_info": "passed to the reward function or the environment, never to the policy",
    }
    answer_keys = OWN_ANSWER_KEYS
    blobs_are_answers = True

    def claim(self, columns, sample) -> float:
        cols = set(columns)
        if "prompt" not in cols:
            return 0.0
        score = 0.0
        if "data_source" in cols:
            score += 0.6
        if cols & {"reward_model", "reward_spec"}:
            score += 0.25
        if cols & {"ability", "extra_info", "env_class"}:
            score += 0.1
        return min(score, 0.92)

    def to_task(self, row, ref, withheld) -> RowTask:
        chat = c.chat(row.get("prompt"))
        if chat is None:
            if isinstance(row.get("prompt"), str) and row["prompt"].strip():
                chat = [{"role": "user", "content": row["prompt"]}]
            else:
                raise RowProblem(f"Row {ref} has no prompt the policy would see.")
        source = c.as_text(row.get("data_source")).strip()
        env_class = c.as_text(row.get("env_class")).strip()
        reward = c.nested(row.get("reward_spec") if "reward_spec" in row else row.get("reward_model"))
        style = (reward.get("style") or reward.get("method")) if isinstance(reward, dict) else None
        framework = "SkyRL" if env_class or "reward_spec" in row else "verl"
        how = (f"SkyRL's {env_class!r} environment runs and scores the reply." if env_class
               else f"Scored by {scorer_for(source)}." if source else "Scored by the trainer's reward function.")
        extra = c.nested(row.get("extra_info"))
        text = c.last_user_text(chat)
        facets = {"framework": framework, **c.facets_from(row, ("data_source", "ability", "env_class",
                                                                 "agent_name"))}
        if style:
            facets["reward"] = str(style)[:40]
        sections = c.sections(
            c.section("task", "What the agent gets", [b.messages(chat)]),
            c.section("grading", "How it is graded", [
                c.grading_note(withheld, how),
                b.kv([("Data source", source), ("Environment class", env_class), ("Ability", row.get("ability")),
                      ("Reward style", style), ("Agent loop", row.get("agent_name"))]),
                b.value(reward, title="reward_spec" if "reward_spec" in row else "reward_model")
                if isinstance(reward, dict) and reward else None,
            ]),
            c.section("extra", "Extra info (passed to the reward function)",
                      [b.value(extra)] if extra not in (None, "", {}) else []),
            c.section("fields", "The row", [c.leftovers(row, {"prompt", "data_source", "env_class", "ability",
                                                              "reward_model", "reward_spec", "extra_info",
                                                              "agent_name"})]),
        )
        return RowTask(title=c.title_from(text, f"Row {ref.index}"), brief=c.brief_from(text), facets=facets,
                       sections=sections, facts={"framework": framework})
