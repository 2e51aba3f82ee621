"""The processor registry: every row format registers here, and the surest claim wins.

Built-in processors register on first use through the same `register` a new one calls. The generic processor
claims every table with a low score, so a dataset always gets one.
"""

from __future__ import annotations

import threading
from typing import Sequence

from rlx.adapters.rows.processors.base import Processor

_PROCESSORS: dict[str, Processor] = {}
_builtin_done: list[bool] = []
_builtin_lock = threading.Lock()


def register(processor: Processor) -> Processor:
    if not processor.key:
        raise ValueError("a processor needs a key")
    _PROCESSORS[processor.key] = processor
    return processor


def unregister(key: str) -> None:
    _PROCESSORS.pop(key, None)


def get_processor(key: str) -> Processor | None:
    _ensure_builtin()
    return _PROCESSORS.get(key)


def all_processors() -> list[Processor]:
    _ensure_builtin()
    return list(_PROCESSORS.values())


TAG_BONUS = 0.05  # a dataset tagged with a processor's kind or key ("verifiers", "nemo-gym") tips a close call


def choose_processor(columns: Sequence[str], sample: Sequence[dict],
                     tags: Sequence[str] = ()) -> tuple[Processor, float]:
    """The processor with the highest claim on these columns and sample rows (ties: the one registered first).

    The sample is cleaned of answers before any processor looks at it, so a claim never depends on one."""
    from rlx.adapters.rows.processors.answers import withhold_answers

    clean = [withhold_answers(row)[0] for row in sample if isinstance(row, dict)][:20]
    best, best_score = None, -1.0
    for processor in all_processors():
        try:
            score = float(processor.claim(list(columns), clean))
        except Exception:  # noqa: BLE001 - a processor that cannot judge these rows does not claim them
            score = 0.0
        if score > 0 and (processor.kind in tags or processor.key in tags):
            score += TAG_BONUS
        if score > best_score:
            best, best_score = processor, score
    assert best is not None  # the generic processor is always registered
    return best, best_score


def _ensure_builtin() -> None:
    if _builtin_done:
        return
    with _builtin_lock:
        if _builtin_done:
            return
        from rlx.adapters.rows.processors import builtin

        for processor in builtin.PROCESSORS:
            _PROCESSORS.setdefault(processor.key, processor)
        _builtin_done.append(True)
