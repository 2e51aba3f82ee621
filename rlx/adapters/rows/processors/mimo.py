"""Xiaomi MiMo release rows: verl-shaped, with the real task in `extra_info` (`instance_json`, a JSON text).

Domains are told apart by the instance id: format-code-task-* (code), arvo_* (cyber), dasyn_* (webdev),
s3k_* (general), and music rows by their `src_id`."""

from __future__ import annotations

from rlx.adapters import blocks as b
from rlx.adapters.rows.processors import common as c
from rlx.adapters.rows.processors.base import Processor, RowProblem, RowTask

# Fixes, proofs of concept and hidden grading material in MiMo instances.
OWN_ANSWER_KEYS = ("patch", "fix_patch", "solution_patch", "test_patch", "poc", "poc_file", "poc_path",
                   "pass_anchor", "check_code", "FAIL_TO_PASS", "PASS_TO_PASS")
DOMAINS = (("format-code-task", "code"), ("arvo_", "cyber"), ("arvo-", "cyber"), ("dasyn_", "webdev"),
           ("s3k_", "general"))
GRADERS = {
    "code": "The hidden test patch is applied and the test command run; exit code 0 scores 1.",
    "cyber": "The last proof of concept the agent submits must crash the program in the expected function.",
    "webdev": "A vision judge scores a full-page render of the result.",
    "music": "A symbolic scorer compares the ABC score with the requested key, tempo, metre, length and voices.",
    "general": "A weighted rubric of code checks and text-judge questions.",
}
INSTANCE_FIELDS = (("docker_image", "Image"), ("cwd", "Working directory"), ("test_command", "Test command"),
                   ("verifier_timeout_sec", "Verifier timeout (s)"), ("description", "Description"))


def domain_of(instance_id: str, extra: dict) -> str:
    for prefix, domain in DOMAINS:
        if instance_id.startswith(prefix):
            return domain
    if "src_id" in extra or "nvoice_want" in extra:
        return "music"
    return "other"


class MimoProcessor(Processor):
    key = "mimo"
    label = "MiMo release"
    kind = "verl"
    answer_keys = OWN_ANSWER_KEYS
    blobs_are_answers = True

    def claim(self, columns, sample) -> float:
        if "prompt" not in columns or "extra_info" not in columns:
            return 0.0
        hits = 0
        for row in sample:
            extra = c.nested(row.get("extra_info"))
            if isinstance(extra, dict) and ("instance_json" in extra or "nvoice_want" in extra
                                            or str(extra.get("instance_id", "")).startswith(
                                                tuple(p for p, _ in DOMAINS))):
                hits += 1
        return 0.97 if sample and hits * 2 >= len(sample) else 0.0

    def to_task(self, row, ref, withheld) -> RowTask:
        chat = c.chat(row.get("prompt"))
        if chat is None:
            raise RowProblem(f"Row {ref} has no prompt chat (MiMo rows carry the agent's prompt as messages).")
        extra = c.nested(row.get("extra_info"))
        extra = extra if isinstance(extra, dict) else {}
        instance = c.nested(extra.get("instance_json"))
        instance = instance if isinstance(instance, dict) else {}
        instance_id = str(instance.get("instance_id") or extra.get("instance_id") or "")
        domain = domain_of(instance_id, extra)
        text = c.last_user_text(chat)
        facets = {"domain": domain, **c.facets_from(extra, ("tag", "meter", "lang", "category", "subcategory")),
                  **c.facets_from(row, ("ability", "agent_name"))}
        details = [(label, c.as_text(instance.get(key))) for key, label in INSTANCE_FIELDS if key in instance]
        rest = {k: v for k, v in extra.items() if k != "instance_json"}
        sections = c.sections(
            c.section("task", "What the agent gets", [b.messages(chat, title="The agent's exact prompt")]),
            c.section("environment", "Where it runs", [b.kv([("Instance", instance_id), ("Domain", domain),
                                                             *details])]),
            c.section("grading", "How it is graded", [c.grading_note(withheld, GRADERS.get(
                domain, "The release's grader for this domain scores the result."))]),
            c.section("extra", "Extra info", [b.value(rest)] if rest else []),
            c.section("fields", "The row", [c.leftovers(row, {"prompt", "extra_info"})]),
        )
        title = instance_id or c.title_from(text, f"Row {ref.index}")
        return RowTask(title=title, brief=c.brief_from(text), facets=facets, sections=sections,
                       facts={"domain": domain})
