"""Which keys name answers, and taking them out of nested data.

The rule, applied to a key's words (split on `_ - . / space`, camelCase and digits, lower-cased, plural `s`
ignored, glued pairs such as "groundtruth" or "expectedoutput" split when both halves are known words):

1. A key names an answer if one of its words is an answer word: answer, ans, solution, gold, golden, truth,
   groundtruth, gt, expected, reference, oracle, target, label, correct, rubric. "ref" counts only beside a
   word for content (ref_output, ref_code, ref_text...), because a bare ref is a git or task ref.
2. Unless the key also holds a word that makes that answer word harmless. For every answer word: time,
   duration, runtime, latency, seconds, minutes, hours, estimate, format, type, has (expected_time_min,
   answer_format, has_solution). For reference only: url, uri, link, paper, doc, citation (reference_url).
   For target only: os, platform, arch, dir, path, host, port, url, device, language (target_os). For label
   only: difficulty, category (difficulty_label).

Words are whole words, so expert_time_estimate_min or unexpected_error are not answers. When in doubt the
rule withholds: a false alarm hides a harmless field, a miss shows an answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from rlx.adapters.withhold.masking import Withheld
from rlx.adapters.withhold.walk import Walk

ANSWER_WORDS = frozenset({
    "answer", "ans", "solution", "gold", "golden", "truth", "groundtruth", "gt", "expected", "reference",
    "oracle", "target", "label", "correct", "rubric",
})
CONTENT_WORDS = frozenset({
    "output", "text", "code", "result", "value", "patch", "program", "sql", "query", "response", "completion",
    "impl", "implementation", "answer", "solution", "label", "sequence", "string", "summary", "translation",
})
HARMLESS_FOR_ALL = frozenset({
    "time", "duration", "runtime", "latency", "seconds", "minutes", "hours", "estimate", "format", "type", "has",
})
HARMLESS_FOR = {
    "reference": frozenset({"url", "uri", "link", "paper", "doc", "citation"}),
    "target": frozenset({
        "os", "platform", "arch", "architecture", "dir", "directory", "path", "host", "port", "url", "device",
        "language", "lang",
    }),
    "label": frozenset({"difficulty", "category"}),
}
# Answer words long enough that a glued form ("answerkey", "myanswer") is still read as that word.
_GLUE_STRONG = ("groundtruth", "solution", "answer", "oracle", "rubric")
_GLUE_ENDINGS_THAT_CHANGE_MEANING = {"ing", "ed", "er"}
_KNOWN_WORDS = (
    ANSWER_WORDS | CONTENT_WORDS | HARMLESS_FOR_ALL | {"ref", "final", "canonical", "true", "ground", "best"}
    | frozenset().union(*HARMLESS_FOR.values())
)
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

KEY_WHY = "its name marks it as an answer"


def is_answer_key(key: str, extra_keys: Iterable[str] = ()) -> bool:
    """True if `key` names an answer (see the module docstring), or is one of `extra_keys` (any spelling)."""
    if not isinstance(key, str):
        return False
    if extra_keys and "_".join(key_words(key)) in _spellings(extra_keys):
        return True
    return _by_rule(key)


@lru_cache(maxsize=8192)
def _by_rule(key: str) -> bool:
    """The rule itself; cached, since rows repeat the same keys thousands of times."""
    words = key_words(key)
    present = set(words)
    for word in words:
        if word == "ref" and not present & CONTENT_WORDS:
            continue
        if word not in ANSWER_WORDS and word != "ref":
            continue
        if not present & (HARMLESS_FOR_ALL | HARMLESS_FOR.get(word, frozenset())):
            return True
    return False


def _spellings(names: Iterable[str]) -> frozenset[str]:
    """One spelling per name, so "goldPatch", "gold_patch" and "GOLD-PATCH" compare equal."""
    return frozenset("_".join(key_words(name)) for name in names)


def key_words(key: str) -> list[str]:
    """The key's words, lower-cased and singular: "finalAnswers" -> ["final", "answer"]."""
    words: list[str] = []
    for raw in _WORD.findall(key):
        words.extend(_unglue(raw.lower()))
    return [_singular(word) for word in words]


def _singular(word: str) -> str:
    if word.endswith("s") and word[:-1] in _KNOWN_WORDS:
        return word[:-1]
    return word


def _is_known(word: str) -> bool:
    return word in _KNOWN_WORDS or (word.endswith("s") and word[:-1] in _KNOWN_WORDS)


def _unglue(word: str) -> list[str]:
    if _is_known(word):
        return [word]
    for cut in range(2, len(word) - 1):
        if _is_known(word[:cut]) and _is_known(word[cut:]):
            return [word[:cut], word[cut:]]
    for strong in _GLUE_STRONG:
        rest = word.removeprefix(strong) if word.startswith(strong) else word.removesuffix(strong)
        if rest != word and rest not in _GLUE_ENDINGS_THAT_CHANGE_MEANING:
            return [strong, rest]
    return [word]


def answer_rule(extra_keys: Iterable[str] = ()):
    """The shared rule plus a format's own names, as one test of a key (what the walker asks)."""
    extra = _spellings(extra_keys)
    if not extra:
        return _by_rule_text
    return lambda key: _by_rule_text(key) or "_".join(key_words(key)) in extra


def _by_rule_text(key: str) -> bool:
    return isinstance(key, str) and _by_rule(key)


def strip_answers(value: Any, where: str = "", extra_keys: Iterable[str] = ()) -> tuple[Any, list[Withheld]]:
    """A copy of `value` with every answer-keyed entry dropped, at any depth, and what was dropped; a value
    dropped once is masked wherever else it stands in `value` (a live server's observation repeating the target
    it also returned under `expected`), with the one mask.

    The one walk (walk.py): dicts, lists, tuples, and strings holding JSON or Python-literal objects or lists."""
    from rlx.adapters.withhold.values import mask_values_in, repeatable

    walk = Walk(answer_rule(extra_keys), KEY_WHY)
    cleaned = walk.clean(value, where)
    masked, again = mask_values_in(cleaned, repeatable(walk.values), where)
    return masked, walk.report() + again[:20]
