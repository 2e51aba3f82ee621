"""The words of a task's prompt that task search reads beyond its title and brief: a long prompt's question is
often at its end, past the brief's 240 characters."""

from __future__ import annotations

import re

WORDS_CHARS = 1000  # of a prompt's distinct words; the snapshot clips to the same (rlx/snapshot/dataset_rows.py)
_WORD = re.compile(r"\w+", re.UNICODE)


def search_words(text: str, title: str, brief: str) -> str:
    """The prompt's distinct words not already in its title and brief, the last ones first (a long prompt asks
    its question at the end), cut at WORDS_CHARS: what task search reads beyond the title and brief."""
    seen = {w.lower() for w in _WORD.findall(f"{title} {brief}")}
    kept, size = [], 0
    for word in reversed(_WORD.findall(text or "")):
        low = word.lower()
        if low in seen:
            continue
        seen.add(low)
        size += len(word) + 1
        if size > WORDS_CHARS:
            break
        kept.append(word)
    return " ".join(reversed(kept))
