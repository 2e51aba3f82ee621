"""The community's view of rollouts: public, finished, scored runs that people started (never a health check's:
rlx/runs/health.py), never who ran them.

Every answer comes from the index of runs (runs/index.sqlite) through its partial index on exactly these rows;
no run file is read. Queries name their columns, and `visitor` is never one of them.
"""

from __future__ import annotations

from rlx.runs.runs_db import reading
from rlx.runs.outcome import FAILED, KINDS, SOLVED
from rlx.runs.usage import per_solved
from rlx.store import Store

COMMUNITY = "visibility='public' AND status='finished' AND scored=1 AND purpose IS NULL"  # as runs/runs_db.py's
MAX_ENVS = 100
MAX_RECENT = 30
MAX_BOARD = 50
HEATMAP_TASKS = 60  # rows of the heatmap: the most-run tasks
HEATMAP_MODELS = 12  # its columns: the most-run agent/model pairs


def model_label(agent: str, model: str | None) -> str:
    return f"{agent} · {model}" if model else agent


def environments(store: Store) -> list[dict]:
    """Environments with community rollouts, the busiest first."""
    with reading(store) as db:
        rows = db.execute("SELECT env_id, SUM(runs) AS runs, COUNT(*) AS tasks, SUM(reward_sum) / SUM(runs) AS mean "
                          "FROM community_tasks GROUP BY env_id ORDER BY runs DESC, env_id LIMIT ?",
                          (MAX_ENVS,)).fetchall()
    return [dict(r) for r in rows]


def recent(store: Store, env_id: str | None = None) -> list[dict]:
    where, args = (f"{COMMUNITY} AND env_id=?", (env_id,)) if env_id else (COMMUNITY, ())
    named = "runs_community_env_recent" if env_id else "runs_community_recent"
    with reading(store) as db:
        # named: the planner would otherwise pick the status index and sort every finished run
        rows = db.execute(f"SELECT id, env_id, ref, agent, model, reward, finished_at FROM runs "
                          f"INDEXED BY {named} "
                          f"WHERE {where} ORDER BY finished_at DESC LIMIT ?", (*args, MAX_RECENT)).fetchall()
    return [{**dict(r), "label": model_label(r["agent"], r["model"])} for r in rows]


def leaderboard(store: Store, env_id: str) -> list[dict]:
    """Per agent and model on one environment: runs, tasks tried, mean reward, how many runs reached 1, and the
    cost per solved task: the cost of all its rollouts here over those that reached 1 ("unknown" when any
    rollout's price could not be read: rlx/runs/usage.py per_solved)."""
    with reading(store) as db:
        rows = db.execute(f"SELECT agent, model, COUNT(*) AS runs, COUNT(DISTINCT ref) AS tasks, "
                          f"AVG(reward) AS mean, SUM(reward >= 1) AS full, TOTAL(cost) AS cost, COUNT(cost) AS priced, "
                          f"TOTAL(cost_unknown) AS unpriced FROM runs WHERE {COMMUNITY} AND env_id=? "
                          f"GROUP BY agent, model ORDER BY mean DESC, runs DESC LIMIT ?",
                          (env_id, MAX_BOARD)).fetchall()
    return [{**dict(r), "label": model_label(r["agent"], r["model"]),
             "per_solved": per_solved(r["cost"], r["priced"], int(r["unpriced"]), r["full"] or 0)} for r in rows]


def outcomes(store: Store, env_id: str) -> list[dict]:
    """Per agent and model on one environment, how its ended public rollouts ended, in the one vocabulary
    (rlx/runs/outcome.py): the solve rate counts solved and failed only, never an infrastructure error or an
    unobserved run."""
    with reading(store) as db:
        rows = db.execute("SELECT agent, model, kind, COUNT(*) AS n FROM runs INDEXED BY runs_ended_public "
                          "WHERE env_id=? AND visibility='public' AND purpose IS NULL "
                          "AND status IN ('finished', 'failed', 'stopped') "
                          "GROUP BY agent, model, kind", (env_id,)).fetchall()
    board: dict[tuple, dict] = {}
    for r in rows:
        entry = board.setdefault((r["agent"], r["model"]), {"label": model_label(r["agent"], r["model"]),
                                                            **{k: 0 for k in KINDS}})
        if r["kind"] in KINDS:
            entry[r["kind"]] += r["n"]
    for entry in board.values():
        counted = entry[SOLVED] + entry[FAILED]
        entry["rate"] = entry[SOLVED] / counted if counted else None
    return sorted(board.values(), key=lambda e: (-(e["rate"] or 0), e["label"]))[:MAX_BOARD]


def by_group(store: Store, env_id: str, group_of: dict[str, str]) -> list[dict]:
    """Per group of tasks (a domain, a category: `group_of` maps a task to it) and agent·model: the community
    rollouts and the share that solved their task (reward 1)."""
    with reading(store) as db:
        cells = db.execute(f"SELECT ref, agent, model, COUNT(*) AS runs, SUM(reward >= 1) AS solved FROM runs "
                           f"WHERE {COMMUNITY} AND env_id=? GROUP BY agent, model, ref", (env_id,)).fetchall()
    groups: dict[tuple[str, str], list[int]] = {}
    for c in cells:
        group = group_of.get(c["ref"])
        if group:
            tally = groups.setdefault((group, model_label(c["agent"], c["model"])), [0, 0])
            tally[0] += c["runs"]
            tally[1] += c["solved"] or 0
    return [{"group": g, "label": label, "runs": runs, "solved": solved, "rate": solved / runs}
            for (g, label), (runs, solved) in sorted(groups.items(), key=lambda kv: (kv[0][0], -kv[1][1] / kv[1][0]))]


def version(store: Store, env_id: str) -> int:
    """Grows with every change to this environment's community rows (0: it has none yet)."""
    with reading(store) as db:
        row = db.execute("SELECT version FROM community_versions WHERE env_id=?", (env_id,)).fetchone()
    return row["version"] if row else 0


def heatmap(store: Store, env_id: str) -> dict:
    """Mean reward per task (rows) and agent/model (columns), bounded to the most-run tasks and models."""
    with reading(store) as db:
        cells = db.execute(f"SELECT ref, agent, model, AVG(reward) AS mean, COUNT(*) AS runs FROM runs "
                           f"WHERE {COMMUNITY} AND env_id=? GROUP BY agent, model, ref", (env_id,)).fetchall()  # index order
    task_runs: dict[str, int] = {}
    model_runs: dict[str, int] = {}
    grid: dict[tuple[str, str], tuple[float, int]] = {}
    for c in cells:
        label = model_label(c["agent"], c["model"])
        task_runs[c["ref"]] = task_runs.get(c["ref"], 0) + c["runs"]
        model_runs[label] = model_runs.get(label, 0) + c["runs"]
        grid[(c["ref"], label)] = (c["mean"], c["runs"])
    tasks = sorted(task_runs, key=lambda t: (-task_runs[t], t))[:HEATMAP_TASKS]
    models = sorted(model_runs, key=lambda m: (-model_runs[m], m))[:HEATMAP_MODELS]
    left, top, right = _heat_margins(tasks, models)
    rows = [{"ref": t, "y": top + HEAT_CELL_H * i, "text_y": top + HEAT_CELL_H * (i + 1) - 6,
             "cells": [_cell(t, m, j, grid.get((t, m)), left) for j, m in enumerate(models)]}
            for i, t in enumerate(sorted(tasks))]
    return {"models": models, "rows": rows, "tasks_total": len(task_runs), "models_total": len(model_runs),
            "left": left, "top": top,
            "width": left + HEAT_CELL_W * len(models) + right, "height": top + HEAT_CELL_H * len(rows) + 8}


# The heatmap's SVG geometry, worked out here once rather than per cell in the template (up to 720 cells). The
# margins fit the longest names shown (tasks cut at 34 characters, models at 28, as the template cuts them), so
# short names leave no empty band above or beside the grid.
HEAT_CELL_W, HEAT_CELL_H = 56, 18
CHAR_W = 6.3  # px per character at the labels' 11 px sans-serif, a little generous
RISE, RUN = 0.65, 0.77  # the model labels slant up at 40 degrees: sin and cos of it


def _heat_margins(tasks: list[str], models: list[str]) -> tuple[int, int, int]:
    """(left, top, right): room for the task names, the slanted model names, and how far those slant past the
    grid's right edge (each starts over the middle of its column)."""
    longest_task = max((min(len(t), 34) for t in tasks), default=0)
    lengths = [min(len(m), 28) for m in models]
    reach = max((HEAT_CELL_W * j + HEAT_CELL_W // 2 + CHAR_W * RUN * n for j, n in enumerate(lengths)), default=0)
    return (round(12 + CHAR_W * longest_task), round(18 + CHAR_W * RISE * max(lengths, default=0)),
            max(8, round(reach - HEAT_CELL_W * len(models)) + 8))


def _cell(ref: str, label: str, column: int, found: tuple[float, int] | None, left: int) -> dict:
    x = left + HEAT_CELL_W * column
    if found is None:
        return {"x": x, "title": f"{ref} · {label}: not tried"}
    mean, runs = found
    return {"x": x, "text_x": x + HEAT_CELL_W // 2 - 1, "mean": mean, "runs": runs, "fill": reward_colour(mean),
            "text": f"{mean:.2f}",
            "title": f"{ref} · {label}: mean {mean:.2f} over {runs} rollout{'' if runs == 1 else 's'}"}


def reward_colour(mean: float) -> str:
    """From red (0) through amber to green (1), as an HSL fill the SVG can carry."""
    share = min(1.0, max(0.0, mean))
    return f"hsl({round(share * 120)}, 65%, {round(48 - share * 8)}%)"


def tried_refs(store: Store, env_id: str) -> set[str]:
    with reading(store) as db:
        rows = db.execute("SELECT ref FROM community_tasks WHERE env_id=?", (env_id,)).fetchall()
    return {r["ref"] for r in rows}
