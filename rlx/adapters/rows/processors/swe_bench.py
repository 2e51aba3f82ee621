"""SWE-bench and its kin (Lite, Verified, Multimodal, Pro, SWE-Gym, SWE-smith...): a repository at a commit and an
issue to resolve. The agent gets the issue (`problem_statement`, and in SWE-bench Pro the `requirements` and
`interface` beside it) and the repository checked out at `base_commit`. The gold `patch`, the hidden
`test_patch`, the tests the grader runs (FAIL_TO_PASS must start passing, PASS_TO_PASS must keep passing) and
`hints_text` (comments from the issue thread, not given in SWE-bench's standard setting) are withheld.
"""

from __future__ import annotations

from rlx.adapters import blocks as b
from rlx.adapters.key_labels import labelled
from rlx.adapters.rows.processors import common as c
from rlx.adapters.rows.processors.base import Processor, RowProblem, RowTask

MARKERS = {"patch", "test_patch", "fail_to_pass", "pass_to_pass"}
LABELS = ("instance_id", "repo", "base_commit", "version", "created_at", "environment_setup_commit", "repo_language",
          "language", "issue_specificity", "issue_categories", "image_name", "docker_image", "dockerhub_tag",
          "difficulty", "source", "split")
REASONS = {
    "patch": "the gold fix the grader's tests were written against",
    "test_patch": "the hidden tests the grader adds before it runs them",
    "FAIL_TO_PASS": "the tests the grader runs that the fix must make pass",
    "PASS_TO_PASS": "the tests the grader runs that must keep passing",
    "fail_to_pass": "the tests the grader runs that the fix must make pass",
    "pass_to_pass": "the tests the grader runs that must keep passing",
    "hints_text": "comments from the issue thread, which SWE-bench's standard setting does not give the agent",
    "selected_test_files_to_run": "the test files the grader runs",
    "before_repo_set_cmd": "the grader's setup command (it checks out the hidden test files)",
}


class SweBenchProcessor(Processor):
    key = "swe-bench"
    label = "SWE-bench style"
    kind = "rows"
    agent_fields = ("problem_statement", "requirements", "interface")
    label_fields = LABELS
    withheld_reasons = REASONS
    answer_keys = ("patch", "test_patch", "FAIL_TO_PASS", "PASS_TO_PASS", "hints_text",
                   "selected_test_files_to_run")

    def claim(self, columns, sample) -> float:
        cols = {str(name).lower() for name in columns}
        if not {"instance_id", "problem_statement"} <= cols:
            return 0.0
        return 0.93 if cols & MARKERS else 0.5

    def to_task(self, row, ref, withheld) -> RowTask:
        issue = c.as_text(row.get("problem_statement"))
        if not issue.strip():
            raise RowProblem(f"Row {ref} has no problem_statement (the issue the agent is asked to resolve).")
        given = [b.prompt(issue, title="The issue (problem_statement)")]
        for name, title in (("requirements", "Requirements"), ("interface", "Interface")):
            if c.as_text(row.get(name)).strip():
                given.append(b.prompt(c.as_text(row[name]), title=title))
        repo, commit = c.as_text(row.get("repo")), c.as_text(row.get("base_commit"))
        if repo:
            given.append(b.kv([("Repository", repo), ("Checked out at", commit or "(not given)")],
                              title="The repository the agent works in"))
        instance = c.as_text(row.get("instance_id"))
        how = ("The grader applies the agent's diff, adds the hidden test patch, and runs the FAIL_TO_PASS tests "
               "(they must now pass) and the PASS_TO_PASS tests (they must keep passing).")
        labels = [(n, c.as_text(row[n])) for n in LABELS if row.get(n) not in (None, "", [])
                  and n not in ("repo", "base_commit")]
        sections = c.sections(
            c.section("task", "What the agent gets", given),
            c.section("grading", "How it is graded", [c.grading_note(withheld, how)]),
            c.section("fields", "The row", [b.kv(labelled(labels)) if labels else None]),
        )
        facets = c.facets_from(row, ("repo", "version", "repo_language", "language", "difficulty"))
        title = c.title_from(issue, instance or f"Row {ref.index}")
        return RowTask(title=f"{instance}: {title}" if instance and instance not in title else title,
                       brief=c.brief_from(issue), facets=facets, sections=sections,
                       facts={"instance": instance, "repo": repo})
