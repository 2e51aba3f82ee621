"""Which tasks of a batch are graded by a judge model, and whether a dataset's batch form offers the judge picker.

A task is judged when its run option in this machine's sandbox carries the judge field (for Harbor tasks,
rlx/adapters/harbor/runoptions.py): a batch asks of each task, through its adapter, what the run form asks of one.
"""

from __future__ import annotations

from rlx.runs.judges import FIELD

_offered: dict[tuple, bool] = {}


def judged_refs(state, refs: list[str]) -> list[str]:
    return [ref for ref in refs if _judged(state, ref)]


def offers_judge(state) -> bool:
    """Whether any task of the dataset is judged; found once per index version, as the page asks on every view."""
    index = state.index
    key = (state.adapter.key, index.env_id, index.revision, index.built_at)
    if key not in _offered:
        if len(_offered) >= 256:
            _offered.pop(next(iter(_offered)))
        _offered[key] = any(_judged(state, row.ref) for row in index.rows)
    return _offered[key]


def _judged(state, ref: str) -> bool:
    return any(f.name == FIELD for option in state.adapter.run_options(state.env, state.index, ref)
               if option.key == "local" and option.can_run for f in option.fields)
