"""What to profile after the measurements: each missed target, and the slowest page.

Statement profiles (per-statement SQLite time of a search) always run: they take a second. pyinstrument samples
run in the full benchmark only: a snapshot build, requests through the Flask app in this process (the same code
gunicorn runs, without the network), an indexing run up to its published list, and the environment page.
"""

from __future__ import annotations

from benchmarks import indexing, pages, profiling, search, snapshot_build
from benchmarks.inprocess import InProcessApp
from benchmarks.workspace import Workspace

STATEMENT_QUERIES = 4  # the slowest queries whose statements are listed


def where_missed(ws: Workspace, app: InProcessApp, results: dict, mix: list[search.Query], sampled: bool) -> dict:
    out: dict = {}
    snapshot = results.get("snapshot")
    if snapshot and not all(snapshot["met"].values()) and sampled:
        out["snapshot"] = profiling.sampled(snapshot_build.profile_target(ws))
    slow = _slow_queries(results, mix)
    if slow:
        out["statements"] = _statements(ws, app, slow[:STATEMENT_QUERIES])
        if sampled:
            out["search_requests"] = _in_app(app, [(q.key, q.app, 20) for q in slow[:1]]
                                             + [("Q1", "/api/search", 200)])
    first = results.get("indexing", {}).get("5,000-task repository")
    if sampled and first and not results["indexing"]["met"]["list"]:
        out["indexing"] = profiling.sampled(indexing.profile_target())
    if sampled:
        env_page = pages.page_paths()[0][1]
        out["env_page"] = _in_app(app, [("environment page", env_page, 20)])
    return out


def _slow_queries(results: dict, mix: list[search.Query]) -> list[search.Query]:
    """Queries over the p50 target in the app (or, without app figures, in the floor), slowest first."""
    app = (results.get("app") or {}).get("per_query") or {}
    floor = results.get("floor") or {}
    figures = {k: v["p50_ms"] for k, v in (app or floor).items() if k != "overall"}
    keys = sorted((k for k, ms in figures.items() if ms > search.TARGET_P50_MS), key=lambda k: -figures[k])
    by_key = {q.key: q for q in mix}
    return [by_key[k] for k in keys if k in by_key]


def _statements(ws: Workspace, app: InProcessApp, queries: list[search.Query]) -> dict[str, list[tuple[str, float]]]:
    """Each statement the route runs for each query, timed on the snapshot file opened as the app opens it."""
    db = search.app_connection(ws)
    try:
        return {q.key: [(profiling.short_sql(sql), ms) for sql, ms in
                        profiling.statements(lambda timed, path=q.app: app.statements(path, timed), db)]
                for q in queries}
    finally:
        db.close()


def _in_app(app: InProcessApp, requests: list[tuple[str, str, int]]) -> dict[str, str]:
    """pyinstrument over `repeat` requests of each path, through the app's test client (no network)."""
    client = app.client
    headers = {"Accept-Encoding": "gzip, deflate, br"}
    out = {}
    for label, path, repeat in requests:
        for _ in range(3):
            client.get(path, headers=headers)  # the snapshot copy and the caches are not what is profiled
        out[f"{label}: {repeat} × GET {path}"] = profiling.sampled(
            lambda: [client.get(path, headers=headers) for _ in range(repeat)])
    return out
