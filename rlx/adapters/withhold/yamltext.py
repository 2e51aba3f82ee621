"""Answer-keyed values masked in raw YAML text (a Terminal-Bench task.yaml, a docker-compose file), as written.

Scanned by indentation, not parsed, so a file that does not parse is masked too. When a key names an answer
(`expected_output: 42`, `answers:` over a nested list), its inline value reads "‹withheld›" and every line
indented under it becomes `# ‹withheld›`, so the line count is kept. The text of a block scalar (`instruction: |`)
is never read as keys: a prompt that says "answer: in /app/out.txt" stays as written.
"""

from __future__ import annotations

import re

from rlx.adapters.withhold.keys import KEY_WHY, is_answer_key
from rlx.adapters.withhold.masking import MASK, Withheld

_KEY = re.compile(
    r"""^(?P<lead>[ \t]*(?:-[ \t]+)*)"""  # indentation and any list dashes
    r"""(?P<key>"[^"\n]*"|'[^'\n]*'|[^\s:#'"\-][^:#\n]*?)[ \t]*:(?=\s|$)(?P<rest>.*)$"""
)
_BLOCK = re.compile(r"^[|>][-+0-9]*\s*(#.*)?$")


def mask_yaml_answers(text: str, where: str = "") -> tuple[str, list[Withheld]]:
    """`text` with answer-keyed values masked (line count kept), and what was masked."""
    lines = text.split("\n")
    withheld: list[Withheld] = []
    skip_deeper_than: int | None = None  # inside a block scalar or a masked value: lines indented past this
    masking = False
    for number, line in enumerate(lines):
        indent = len(line) - len(line.lstrip(" \t"))
        if skip_deeper_than is not None:
            if not line.strip() or indent > skip_deeper_than:
                if masking and line.strip():
                    lines[number] = line[:indent] + f"# {MASK}" + ("\r" if line.endswith("\r") else "")
                continue
            skip_deeper_than, masking = None, False
        match = _KEY.match(line)
        if not match:
            continue
        key = match.group("key").strip("'\"")
        rest = match.group("rest").strip()
        own_indent = len(match.group("lead"))  # the key's column, past any list dashes
        if is_answer_key(key):
            value_end = "\r" if line.endswith("\r") else ""
            lines[number] = line[:match.end("key")] + ":" + (f' "{MASK}"' if rest and not rest.startswith("#") else "")
            lines[number] += value_end
            label = f"{where} line {number + 1}" if where else f"line {number + 1}"
            withheld.append(Withheld(f"{label} ({key})", KEY_WHY))
            skip_deeper_than, masking = own_indent, True
        elif _BLOCK.match(rest):
            skip_deeper_than, masking = own_indent, False
    return "\n".join(lines), withheld
