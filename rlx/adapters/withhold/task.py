"""Withholding across one task's texts at once: each file by its own rules, then every masked value everywhere.

A task's files are read in two passes. First each shown file is masked by the rules for its kind (task.toml by
its answer keys, grader scripts and other scripts by their answer literals and stated answers, notes by their
stated answers), and every masked stretch gives up the values it held. The reference solution, never shown,
gives up the values it writes out (`echo "1482" > /app/answer.txt`). Then each of those values is masked wherever
else it stands in the task's graders, scripts, notes and task.toml, unless the instruction states it itself.
The instruction and the environment are what the agent gets: they are never masked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rlx.adapters.withhold.file_rules import SOLUTION_WHY, is_note, withheld_file_reason
from rlx.adapters.withhold.masking import MASK, Span, Withheld, apply_spans, line_label, merge_spans
from rlx.adapters.withhold.prose import note_spans
from rlx.adapters.withhold.scripts import grader_spans
from rlx.adapters.withhold.tomltext import toml_answer_spans
from rlx.adapters.withhold.values import drop_public, mask_values, values_in
from rlx.adapters.withhold.yamltext import mask_yaml_answers

MAX_TEXT_CHARS = 2_000_000
YAML_NAMES = frozenset({"task.yaml", "docker-compose.yaml", "docker-compose.yml", "compose.yaml", "compose.yml"})
_WRITES = re.compile(r"(?:^|[\s;&|(])(?:echo|printf|print|tee|write|writelines|dump|dumps|write_text)\b|>")


@dataclass
class TaskTexts:
    texts: dict[str, str]  # shown texts by task-relative path, masked
    withheld: list[Withheld] = field(default_factory=list)
    values: list[str] = field(default_factory=list)  # every value masked somewhere; never shown


def text_kind(path: str) -> str:
    """How a shown file is masked: "toml", "yaml" (settings and compose files, by their answer keys), "agent" (what
    the agent gets: never masked), "note" or "grader" (scripts, tests, the rest)."""
    parts = path.lower().split("/")
    if len(parts) >= 3 and parts[0] == "steps":
        parts = parts[2:]
    name = parts[-1]
    if name == "task.toml" and len(parts) == 1:
        return "toml"
    if name in YAML_NAMES:
        return "yaml"
    if name in ("dockerfile", "containerfile") and parts[0] != "tests":
        return "agent"
    if (len(parts) == 1 and name == "instruction.md") or (len(parts) > 1 and parts[0] in ("environment", "workdir")):
        return "agent"
    if parts[0] != "tests" and is_note(name):
        return "note"
    return "grader"


def withhold_task_texts(texts: dict[str, str], nested=(), public: str = "", environment_root: bool = False
                        ) -> TaskTexts:
    """The texts a page may show, masked by their rules and then by every value masked anywhere in the task.

    `public` is what the agent gets besides the files of kind "agent" (a prompt kept inside a settings file);
    `environment_root` is as for `withheld_file_reason`."""
    result = TaskTexts(texts={})
    values: set[str] = set()
    firsts: dict[str, str] = {}
    for path, text in texts.items():
        reason = withheld_file_reason(path, nested=nested, environment_root=environment_root)
        if reason:
            if reason == SOLUTION_WHY:
                values |= written_values(text)
            continue
        masked, found, held = mask_by_kind(path, text)
        firsts[path] = masked
        values |= held
        result.withheld.extend(found)
    public = "\n".join([public, *(text for path, text in texts.items() if text_kind(path) == "agent")])
    result.values = drop_public(values, public)
    for path, masked in firsts.items():
        if text_kind(path) != "agent":
            masked, found = mask_values(masked, result.values, path)
            result.withheld.extend(found)
        result.texts[path] = masked
    return result


def mask_task_text(path: str, text: str, values: list[str]) -> str:
    """One file read after the index was built (a big file, a walked task's file): the same two passes."""
    masked, _, held = mask_by_kind(path, text)
    if text_kind(path) == "agent":
        return masked
    masked, _ = mask_values(masked, sorted({*values, *held}, key=len, reverse=True), path)
    return masked


def mask_by_kind(path: str, text: str) -> tuple[str, list[Withheld], set[str]]:
    """One file masked by the rules of its kind: the masked text, what was masked, and the values it held."""
    kind = text_kind(path)
    if kind == "agent":
        return text, [], set()
    lines = text.split("\n")
    if len(text) > MAX_TEXT_CHARS:
        span = Span(0, 0, len(lines) - 1, len(lines[-1]), "it is too large to check for answers")
        return "\n".join(apply_spans(lines, [span])), [Withheld(path, span.why)], set()
    if kind == "toml":
        spans, found = toml_answer_spans(text)
        masked = apply_spans(lines, spans, mask=f'"{MASK}"', filler=f"# {MASK}")
    elif kind == "yaml":
        shown, found = mask_yaml_answers(text, where=path)
        masked = shown.split("\n")
        spans = [Span(i, 0, i, len(line), "") for i, (line, after) in enumerate(zip(lines, masked)) if line != after]
    else:
        spans = grader_spans(text) if kind == "grader" else note_spans(lines)
        masked = apply_spans(lines, spans)
        found = [Withheld(line_label(span, path), span.why) for span in merge_spans(spans)]
    held = {value for span in spans for value in values_in(_text_of(lines, span))}
    return "\n".join(masked), found, held


def written_values(solution: str) -> set[str]:
    """The values a reference solution writes out (quoted strings and numbers on its lines that write)."""
    values: set[str] = set()
    for line in solution.split("\n")[:5_000]:
        if _WRITES.search(line):
            values |= {v for v in values_in(_after_command(line)) if any(c.isdigit() for c in v) or " " not in v}
    return values


def _after_command(line: str) -> str:
    """The line without the command word and the redirect target, so `echo 42 > out.txt` gives "42" alone."""
    line = re.sub(r">>?[ \t]*\S+", " ", line)
    return re.sub(r"^[ \t]*\w+[ \t]", " ", line)


def _text_of(lines: list[str], span: Span) -> str:
    if span.start_line == span.end_line:
        return lines[span.start_line][span.start_col:span.end_col]
    inner = lines[span.start_line + 1:span.end_line]
    return "\n".join([lines[span.start_line][span.start_col:], *inner, lines[span.end_line][:span.end_col]])


