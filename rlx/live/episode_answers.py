"""The answers of one episode: a value withheld once is masked in every later field of that episode.

A server may send its answer under an answer-like name once (reasoning-gym's `correct_answer`) and the same value
under an ordinary one later (`total_legs`, a summary sentence, the state). Every observation, state and tool
answer of the episode goes through the one walker (rlx.adapters.withhold.walk): answer-keyed fields are dropped
and their values kept; then those values are masked wherever they stand, in text and as plain numbers.
"""

from __future__ import annotations

from rlx.adapters.withhold.keys import KEY_WHY, answer_rule
from rlx.adapters.withhold.masking import MASK, Withheld
from rlx.adapters.withhold.values import SAME_VALUE_WHY, mask_values_in
from rlx.adapters.withhold.walk import Walk

MAX_KEPT = 500  # values one episode remembers
_NOT_VALUES = frozenset({"true", "false", "none", "null", "nil", ""})


class EpisodeAnswers:
    def __init__(self, values=()):
        self.values: list[str] = sorted(set(values), key=lambda v: (-len(v), v))[:MAX_KEPT]  # longest first

    def clean(self, value, where: str = "") -> tuple[object, list[Withheld]]:
        """`value` with answer-keyed fields dropped and every value withheld so far in the episode masked."""
        walk = Walk(answer_rule(), KEY_WHY)
        cleaned = walk.clean(value, where)
        self._keep(walk.values)
        if not self.values:
            return cleaned, walk.report()
        masked, found = mask_values_in(cleaned, self.values, where)
        masked, numbers = _mask_numbers(masked, set(self.values), where)
        return masked, walk.report() + found + numbers

    def _keep(self, values) -> None:
        fresh = {v for v in values if 2 <= len(v) <= 200 and v.lower() not in _NOT_VALUES} - set(self.values)
        if fresh:
            self.values = sorted(set(self.values) | fresh, key=lambda v: (-len(v), v))[:MAX_KEPT]


def _mask_numbers(value, values: set[str], where: str, depth: int = 0):
    """Numbers (not booleans) equal to a withheld value, masked; (value, what was masked)."""
    found: list[Withheld] = []

    def walk(item, place, level):
        if level > 64:
            return item
        if isinstance(item, dict):
            return {k: walk(v, f"{place}.{k}" if place else str(k), level + 1) for k, v in item.items()}
        if isinstance(item, list):
            return [walk(v, f"{place}[{i}]", level + 1) for i, v in enumerate(item)]
        if isinstance(item, (int, float)) and not isinstance(item, bool) and _spelled(item) in values:
            found.append(Withheld(place, SAME_VALUE_WHY))
            return MASK
        return item

    return walk(value, where, depth), found


def _spelled(number) -> str:
    return str(int(number)) if isinstance(number, float) and number.is_integer() else str(number)
