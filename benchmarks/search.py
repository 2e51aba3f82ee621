"""(b) Search: the app's /api/search through gunicorn (gevent workers); the same searches answered in process by the
app's own search functions, with no HTTP (the floor); and Datasette over the same snapshot file (the peer), all in
the same run.

Each query is measured with one connection (its latency: nothing queues, so this is the server's own time plus
loopback) and with eight (throughput, where requests queue for the two cores). The mix, every query in turn, is
repeated and the median run reported. wrk, the app and Datasette all share the machine's two cores.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from urllib.parse import quote

from benchmarks import wrk
from benchmarks.inprocess import InProcessApp
from benchmarks.page_cache import PAGE_CACHE_KEY, PageCache
from benchmarks.servers import get
from benchmarks.stats import median, percentile
from benchmarks.workspace import Workspace
from rlx.snapshot.schema import open_immutable

# Issue 31's, raised from issue 14's 4 / 20 (the original's 5 / 25): the mix, Q11 and Q12 included, at 1x.
TARGET_P50_MS, TARGET_P99_MS = 2.5, 10.0
TARGET_RPS_8 = 300  # the mix at eight connections
DEEP_PAGE = 200
TYPED_PREFIXES = ("agent", "task", "terminal")
PAGE_SIZE = 24
# Datasette: the same page of cards with the same two facets the app counts (kind, and tags from the JSON list).
# Its word searches go raw with a trailing * (envs_fts holds one token per word): the app's word-prefix match.
DS_ENVS = "/catalog/envs.json?_size=24&_nocol=search_blob&_facet=kind&_facet_array=tags"
DS_TASKS = "/catalog/tasks.json?_searchmode=raw&_size=24&_facet=category&_facet=difficulty"


@dataclass(frozen=True)
class Query:
    key: str
    label: str
    app: str  # path on the app (the floor answers the same path in process)
    datasette: str | None  # the equivalent path on Datasette (None: it has no equivalent)


def query_mix(deep_token: str | None) -> list[Query]:
    """Q1–Q10 of research/perf-anchors.md, every sort order, typed task prefixes and the task list (Q11, Q12), and
    the home page's own request (trending=24)."""
    sort = "&_sort_desc="
    mix = [
        Query("Q1", "empty, trending, page 1", "/api/search", DS_ENVS + sort + "trending"),
        Query("Q2", "common word 'agent'", "/api/search?q=agent", DS_ENVS + sort + "trending&_searchmode=raw&_search=agent*"),
        Query("Q3", "3-letter substring 'rew'", "/api/search?q=rew", DS_ENVS + sort + "trending&_searchmode=raw&_search=rew*"),
        Query("Q4", "rare word 'sokoban'", "/api/search?q=sokoban", DS_ENVS + sort + "trending&_searchmode=raw&_search=sokoban*"),
        Query("Q5", "kind=harbor + 'terminal'", "/api/search?q=terminal&kind=harbor",
              DS_ENVS + sort + "trending&_searchmode=raw&_search=terminal*&kind=harbor"),
        Query("Q6", "tag filter tool-use", "/api/search?f=tag:tool-use",
              DS_ENVS + sort + "trending&tags__arraycontains=tool-use"),
    ]
    for name, column in (("downloads", "downloads"), ("likes", "likes"), ("modified", "modified"),
                         ("created", "created"), ("tasks", "task_count")):
        mix.append(Query(f"Q7-{name}", f"sort by {name}", f"/api/search?sort={name}", DS_ENVS + sort + column))
    deep = DS_ENVS + sort + "trending&_next=" + quote(deep_token) if deep_token else None
    mix += [
        Query("Q8", f"deep page {DEEP_PAGE} (trending)", f"/api/search?page={DEEP_PAGE}", deep),
        Query("Q9", "tasks: prefix 'gra'", "/api/search/tasks?q=gra", DS_TASKS + "&_search=gra*"),
        Query("Q10", "tasks: 'binary sea'", "/api/search/tasks?q=binary+sea", DS_TASKS + "&_search=binary*+sea*"),
        # Issue 31: what a visitor has typed so far of a common word, four letters and more (rlx/snapshot/task_terms.py),
        # and the task list with no words at all.
        *(Query(f"Q11-{word}", f"tasks: typed prefix '{word}'", f"/api/search/tasks?q={word}",
                DS_TASKS + f"&_search={word}*") for word in TYPED_PREFIXES),
        Query("Q12", "tasks: no words", "/api/search/tasks", DS_TASKS),
        Query("home", "home page data (page 1 + trending row)", "/api/search?trending=24", None),
    ]
    return mix


def datasette_deep_token(ws: Workspace, ds_url: str) -> tuple[str | None, str]:
    """Datasette pages by keyset: the `_next` token that opens page DEEP_PAGE, checked against the token it gives
    itself for page 2 (so a change in its format shows up as a note, not a wrong measurement)."""
    from datasette.utils import tilde_encode

    db = open_immutable(ws.local_db)
    try:
        def token_after(position: int) -> str:
            trending, rowid = db.execute("SELECT trending, rowid FROM envs ORDER BY trending DESC, rowid "
                                         "LIMIT 1 OFFSET ?", (position,)).fetchone()
            return f"{tilde_encode(str(trending))},{rowid}"

        status, _, body = get(ds_url + DS_ENVS + "&_sort_desc=trending")
        given = json.loads(body).get("next") if status == 200 else None
        if given != token_after(PAGE_SIZE - 1):
            return None, f"Datasette's page-2 token {given!r} is not the computed one; Q8 left out for Datasette."
        (count,) = db.execute("SELECT count(*) FROM envs").fetchone()
        if count < (DEEP_PAGE - 1) * PAGE_SIZE:  # a small catalog (0.1x) ends before that page
            return None, f"The catalog ends before page {DEEP_PAGE}; Q8 left out for Datasette."
        return token_after((DEEP_PAGE - 1) * PAGE_SIZE - 1), ""
    finally:
        db.close()


# ---------------------------------------------------------------------------------------------- the floor


def floor(app: InProcessApp, mix: list[Query], runs: int, warmup: int = 10,
          cache: PageCache | None = None) -> dict[str, dict]:
    """Each query answered `runs` times by the app's own search functions in this process, no HTTP (each query's
    runs guarded by `cache`: see benchmarks/page_cache.py)."""
    cache = cache or PageCache()
    out = {}
    for query in mix:
        with app.request(query.app) as answer:
            for _ in range(warmup):
                answer()

            def timed(answer=answer) -> list[float]:
                times = []
                for _ in range(runs):
                    started = time.perf_counter_ns()
                    answer()
                    times.append((time.perf_counter_ns() - started) / 1e6)
                return times

            times, note = cache.measure(timed)
        out[query.key] = {"p50_ms": percentile(times, 50), "p99_ms": percentile(times, 99), "times": times,
                          PAGE_CACHE_KEY: note}
    pooled = [t for v in out.values() for t in v["times"]]
    for value in out.values():
        del value["times"]  # the report needs the percentiles only
    out["overall"] = {"p50_ms": percentile(pooled, 50), "p99_ms": percentile(pooled, 99)}
    return out


# ---------------------------------------------------------------------------------------------- over HTTP


def over_http(base_url: str, mix: list[Query], which: str, seconds_1: float, seconds_8: float, mix_seconds: float,
              repeats: int, mix_keys: list[str], cache: PageCache | None = None) -> dict:
    """Per query: latency at one connection and throughput at eight (skipped when seconds_8 is 0); then the
    queries named in `mix_keys` in turn (the ones both servers answer), `repeats` times at each. Each query's
    runs, and each run of the mix, are guarded by `cache` (benchmarks/page_cache.py)."""
    cache = cache or PageCache()
    chosen = [(q, getattr(q, which)) for q in mix if getattr(q, which)]
    for _ in range(3):  # warm every worker and its page cache on every path
        for _, path in chosen:
            get(base_url + path)
    per_query = {}
    for query, path in chosen:
        def both(path=path):
            one = wrk.run(base_url, [path], connections=1, seconds=seconds_1)
            return one, wrk.run(base_url, [path], connections=8, seconds=seconds_8) if seconds_8 else None

        (one, eight), note = cache.measure(both)
        per_query[query.key] = {"p50_ms": one.p50_ms, "p99_ms": one.p99_ms, "rps_1": one.rps,
                                "requests": one.requests, "rps_8": eight.rps if eight else None,
                                "p50_ms_8": eight.p50_ms if eight else None,
                                "errors": one.errors + (eight.errors if eight else 0), PAGE_CACHE_KEY: note}
    paths = [path for query, path in chosen if query.key in mix_keys]
    runs_1, notes_1 = zip(*(cache.measure(lambda: wrk.run(base_url, paths, connections=1, seconds=mix_seconds))
                            for _ in range(repeats)))
    runs_8, notes_8 = zip(*(cache.measure(lambda: wrk.run(base_url, paths, connections=8, seconds=mix_seconds))
                            for _ in range(repeats)))
    overall = {"p50_ms": median([r.p50_ms for r in runs_1]), "p99_ms": median([r.p99_ms for r in runs_1]),
               "rps_1": median([r.rps for r in runs_1]), "rps_8": median([r.rps for r in runs_8]),
               "p50_ms_8": median([r.p50_ms for r in runs_8]), "p99_ms_8": median([r.p99_ms for r in runs_8]),
               "errors": sum(r.errors for r in runs_1 + runs_8), "queries": list(mix_keys),
               "repeats": repeats,
               "mix_runs": [{"connections": n, PAGE_CACHE_KEY: note}
                            for n, notes in ((1, notes_1), (8, notes_8)) for note in notes]}
    return {"per_query": per_query, "overall": overall}


def server_timing(base_url: str, mix: list[Query], samples: int) -> dict[str, float]:
    """The app's own Server-Timing figure for its database work (median ms), where it reports one."""
    out = {}
    for query in mix:
        values = []
        for _ in range(samples):
            status, headers, _ = get(base_url + query.app)
            timing = headers.get("Server-Timing") or headers.get("server-timing") or ""
            for part in timing.split(","):
                name, _, rest = part.strip().partition(";")
                if name == "db" and "dur=" in rest:
                    values.append(float(rest.split("dur=", 1)[1].split(";")[0]))
        if values:
            out[query.key] = median(values)
    return out


# A task search past the app's exact count gives an estimate (total_about, rlx/snapshot/task_sample.py): Datasette's
# exact count of the same search must lie within this share of it.
ESTIMATE_WITHIN = 0.2


def check_totals(base_url: str, mix: list[Query], which: str, expected: dict[str, int],
                 estimated: frozenset[str] = frozenset()) -> list[str]:
    """Every query answers 200 with the floor's total, so the app (or Datasette) did the same search as the floor;
    for the queries in `estimated` (the floor's total is an estimate), Datasette's count is within ESTIMATE_WITHIN
    of it. Returns one line per disagreement (none expected)."""
    problems = []
    for query in mix:
        path = getattr(query, which)
        if not path or (which == "datasette" and query.key == "Q8"):  # on a _next page it counts the rest only
            continue
        status, _, body = get(base_url + path)
        if status != 200:
            problems.append(f"{query.key}: {which} answered {status} for {path}")
            continue
        answer = json.loads(body)
        total = answer.get("total") if which == "app" else answer.get("filtered_table_rows_count")
        if which == "datasette" and query.key in estimated and isinstance(total, int):
            if abs(total - expected[query.key]) > ESTIMATE_WITHIN * total:
                problems.append(f"{query.key}: datasette counted {total}, the floor estimated {expected[query.key]}")
        elif total != expected[query.key]:
            problems.append(f"{query.key}: {which} counted {total}, the floor {expected[query.key]}")
    return problems


def app_connection(ws: Workspace):
    """The snapshot file opened as the app's reader opens it (its page-cache settings)."""
    return open_immutable(ws.local_db)


def totals(app: InProcessApp, mix: list[Query]) -> dict[str, int]:
    """Each query's number of matches, as the app counts it."""
    return {query.key: app.answer(query.app)["total"] for query in mix}


def estimated(app: InProcessApp, mix: list[Query]) -> frozenset[str]:
    """The queries whose total the app estimates (total_about)."""
    return frozenset(query.key for query in mix if app.answer(query.app).get("total_about"))
