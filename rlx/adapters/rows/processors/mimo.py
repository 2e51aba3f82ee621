"""Xiaomi MiMo release rows: verl-shaped, with the real task in `extra_info` (`instance_json`, a JSON text).

Domains are told apart by the instance id: format-code-task-* (code), arvo_* (cyber), dasyn_* (webdev),
s3k_* (general), and music rows by their `src_id`. What each domain shows is in mimo_domains.py."""

from __future__ import annotations

from rlx.adapters import blocks as b
from rlx.adapters.rows.processors import common as c
from rlx.adapters.rows.processors import mimo_domains as d
from rlx.adapters.rows.processors.base import Processor, RowProblem, RowTask

# Fixes, proofs of concept and hidden grading material in MiMo instances.
OWN_ANSWER_KEYS = ("patch", "fix_patch", "solution_patch", "test_patch", "poc", "poc_file", "poc_path",
                   "pass_anchor", "check_code", "FAIL_TO_PASS", "PASS_TO_PASS", "tests_files")
# What the page draws of `extra_info` and of its instance: the environment the agent gets (image, folder, limits),
# the domain's own parameters, and how it is graded. Every other key is the grader's side: withheld and named.
EXTRA_DRAWN = frozenset({"instance_id", "instance_json", "dataset_type", "split", "index",
                         "tag", "bpm", "meter", "length", "nvoice_want", "lang", "src_id",  # music
                         "category", "subcategory", "tags", "cpus", "memory_mb", "allow_internet", "agent_timeout_sec"})
INSTANCE_DRAWN = frozenset({"instance_id", "docker_image", "cwd", "description", "project", "brief", "test_command",
                            "verifier_timeout_sec"})
GRADER_SIDE_WHY = ("the grader's side of extra_info: MiMo builds the sandbox from it, and this page shows only the "
                   "environment the agent gets")
PROMPT_TWIN_WHY = "the same text as the agent's prompt, shown there"
DOMAINS = (("format-code-task", "code"), ("arvo_", "cyber"), ("arvo-", "cyber"), ("dasyn_", "webdev"),
           ("s3k_", "general"))


def domain_of(instance_id: str, extra: dict) -> str:
    for prefix, domain in DOMAINS:
        if instance_id.startswith(prefix):
            return domain
    if "src_id" in extra or "nvoice_want" in extra:
        return "music"
    if extra.get("dataset_type") in ("terminal_bench", "workplace"):
        return "general"
    return "other"


def instance_of(row: dict) -> tuple[str, dict, dict]:
    """(instance id, the parsed instance, extra_info) of a row; empty when the row has none."""
    extra = c.nested(row.get("extra_info"))
    extra = extra if isinstance(extra, dict) else {}
    instance = c.nested(extra.get("instance_json"))
    instance = instance if isinstance(instance, dict) else {}
    return str(instance.get("instance_id") or extra.get("instance_id") or extra.get("src_id") or ""), instance, extra


class MimoProcessor(Processor):
    """The agent gets `prompt`, and the sandbox MiMo builds from `extra_info`: of that, the page draws the
    environment the agent works in (image, folder, limits), the domain's parameters and how it is graded
    (EXTRA_DRAWN, INSTANCE_DRAWN); every other key of extra_info and of its instance is the grader's side, withheld
    and named, and the fixes, proofs of concept and hidden tests are withheld by OWN_ANSWER_KEYS and the shared
    rule whatever their place. Any other top-level field is withheld."""

    key = "mimo"
    label = "MiMo release"
    kind = "verl"
    agent_fields = ("prompt", "extra_info")
    label_fields = ("data_source", "ability", "reward_model.style")
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

    def withhold(self, row, hints=None):
        """The shared rule, plus the names (never the bodies) of the files the hidden test patch touches."""
        _, instance, _ = instance_of(row)
        files = d.tested_files(instance.get("test_patch") if isinstance(instance.get("test_patch"), str) else "")
        clean, withheld = super().withhold(row, hints)
        if isinstance(clean, dict):
            withheld = list(withheld) + _keep_agent_side(clean)
        if files and isinstance(clean, dict):
            clean["_tested_files"] = files
        return clean, withheld

    def to_task(self, row, ref, withheld) -> RowTask:
        chat = c.chat(row.get("prompt"))
        if chat is None:
            raise RowProblem(f"Row {ref} has no prompt chat (MiMo rows carry the agent's prompt as messages).")
        instance_id, instance, extra = instance_of(row)
        instance = {**instance, "_tested_files": row.get("_tested_files") or []}
        domain = domain_of(instance_id, extra)
        text = c.last_user_text(chat)
        facets, details = d.details(domain, instance, extra, text)
        facets = {"domain": d.DOMAIN_LABELS.get(domain, domain), **facets}
        sections = c.sections(
            c.section("task", "What the agent gets", [b.messages(chat, title="The agent's exact prompt")]),
            c.section("details", d.DOMAIN_LABELS.get(domain, "The task"), details),
            c.section("grading", "How it is graded", d.grading(domain, instance)),
            c.section("fields", "The row", [c.leftovers(row, {"prompt", "extra_info"})]),
        )
        headline = instance.get("description") if domain == "cyber" else None  # the prompt wraps the crash report
        title = c.title_from(str(headline or _first_sentence(text)), instance_id or f"Row {ref.index}")
        return RowTask(title=title, brief=c.brief_from(text), facets=facets, sections=sections,
                       facts={"domain": d.DOMAIN_LABELS.get(domain, domain), "instance": instance_id})


def _keep_agent_side(clean: dict) -> list:
    """`extra_info` (and its instance) cut down, in place, to what the page draws; the rest named as withheld."""
    from rlx.adapters.withhold import Withheld

    extra = c.nested(clean.get("extra_info"))
    if not isinstance(extra, dict):
        return []
    withheld, kept = [], {}
    for key, value in extra.items():
        if key in EXTRA_DRAWN:
            kept[key] = value
        else:
            withheld.append(Withheld(f"extra_info.{key}", GRADER_SIDE_WHY))
    instance = c.nested(kept.get("instance_json"))
    if isinstance(instance, dict):
        kept["instance_json"] = {k: v for k, v in instance.items() if k in INSTANCE_DRAWN}
        withheld += [Withheld(f"extra_info.instance_json.{k}",
                              PROMPT_TWIN_WHY if k == "problem_statement" else GRADER_SIDE_WHY)
                     for k in instance if k not in INSTANCE_DRAWN]
    clean["extra_info"] = kept
    return withheld


def _first_sentence(text: str) -> str:
    """The brief's first sentence (a title), skipping a greeting line."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    if len(lines) > 1 and len(lines[0]) < 20 and lines[0].rstrip(",!").lower() in ("hi", "hello", "hey"):
        lines = lines[1:]
    first = lines[0] if lines else ""
    for stop in (". ", "。", "? ", "! "):
        if stop in first:
            return first.split(stop, 1)[0] + stop.strip()
    return first
