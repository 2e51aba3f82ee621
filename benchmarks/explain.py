"""RESULTS.md's closing section, "What moves these numbers": where the time of each missed or near target goes,
read from this run's own figures and profiles, and what would move it."""

from __future__ import annotations

from benchmarks import indexing
from benchmarks.markdown import num
from rlx.snapshot.task_search import COUNT_CAP
from rlx.snapshot.task_sample import ONE_IN


def _search_cpu(s: dict, cpu: dict) -> str:
    """The search tables' CPU in the hourly build: a second process's, or the build's own phases."""
    if s.get("search_process_cpu"):
        waited = s["phases"].get("search_wait", 0)
        return (f"{s['search_process_cpu']:.2f} s in a second process on the other core, fed the rows as they are "
                f"written; the build waited {waited:.2f} s for it; the environment search's sets "
                f"{cpu.get('env_sets', 0):.2f} s in the build's own process")
    return f"{cpu.get('fts', cpu.get('search', 0)):.2f} s, the environment search's sets {cpu.get('env_sets', 0):.2f} s"


def what_moves(r: dict) -> str:
    lines = ["## What moves these numbers"]
    s = r.get("snapshot")
    if s:
        total = s["size"] or 1
        tasks_part = sum(size for name, size in s["tables"] if name.startswith("task")) / total
        cpu = s.get("cpu_phases") or s["phases"]
        lines.append(f"*Snapshot.* Tasks make {tasks_part:.0%} of the file (their rows, the word index and its "
                     "prefix index, the facet table and its index): the length kept of each task brief and what the "
                     "task word index stores are the levers on size. The hourly build starts from a copy of the "
                     f"previous snapshot's file ({cpu.get('copy_previous', 0):.2f} s): each dataset's tasks keep "
                     "their block of keys while its index is unchanged, so its tasks, facets and words stay in place "
                     "and only the changed datasets' tasks are deleted and written again "
                     f"({cpu.get('tasks', 0):.2f} s). What is left grows with the environments, not the tasks, "
                     "because every environment's likes, downloads and trending score move every hour: "
                     f"{cpu.get('read_rows', 0):.2f} s finding each dataset's rows (one stat of its index), "
                     f"{cpu.get('env_rows', 0):.2f} s making each environment's row in Python, "
                     f"{cpu.get('write_rows', 0):.2f} s writing them, {cpu.get('indexes', 0):.2f} s their sort "
                     f"indexes, and the environment search ({_search_cpu(s, cpu)}), then "
                     f"{cpu.get('quick_check', 0):.2f} s checking the file's integrity before it is published. "
                     "Once the file has grown 3 % over the last build from nothing (every few hours), that hour "
                     "also repacks the kept tables and merges the task word index (about 0.35 s more at 1×), so "
                     "the file stays within a few percent of a fresh one." + _at_ten_times(r))
    floor, app = r.get("floor"), r.get("app")
    if floor and app:
        q1f, q1a = floor.get("Q1", {}).get("p50_ms"), app["per_query"].get("Q1", {}).get("p50_ms")
        lines.append(f"*Search.* A cheap query costs {num(q1f)} ms in SQLite and {num(q1a)} ms over HTTP: the rest is "
                     "the request path (Flask, JSON, gzip, gevent, loopback). Its CPU was cut where it went: JSON "
                     "written by orjson, gzip at level 3 for JSON (pages keep level 6 for the home page's 12 KB), "
                     "the session cookie's signer made once per secret (Flask rebuilt it, JSON-encoding `{}`, on "
                     "every request), the metrics' counters looked up once, card links quoted only when a key needs "
                     "it, and the cards' OpenEnv claims read from Redis at most every 5 s per process. Each web "
                     "worker freezes what it loaded at boot (`gc.freeze`), so a full garbage collection no longer "
                     "walks 100,000 objects mid-request (a 65 to 190 ms stall, about one request in 2,000 before). "
                     "A word search costs its word-index match and then every count over the matches (total, kind "
                     "facet, tag facet): a common word or a short substring matches thousands of environments, and "
                     "counting their tags is the heaviest environment statement. At eight connections the two cores "
                     "are shared by wrk and two workers, so p50 there is mostly queueing. Single figures move ±30 % "
                     "between runs on this VM (research/perf-anchors.md), and a one-connection p99 follows the "
                     "machine's load: the slowest requests of a run waited for a core while other processes used it "
                     "(the cores they used are shown beside each 10× figure, benchmarks/cpu_share.py)."
                     + _task_lookup_note(r) + _broad_prefix_note(r))
    x = r.get("indexing")
    if x:
        lines.append(f"*Indexing.* At {indexing.LATENCY_S * 1000:.0f} ms a request, listing pages are fetched one "
                     "after another (each names the next), so the time to the task list is about pages × 50 ms plus "
                     "parsing; files are then fetched 48 at a time. A repository listed whole fetches every small "
                     "text file of each task (so its pages never wait on the Hub); a walked one only the few the "
                     "index needs.")
    p = r.get("first_paint")
    if p and "error" not in p:
        lines.append("*First paint.* The first card comes in the first response (cards rendered on the server, CSS "
                     "inlined, scripts deferred); its bytes follow the HTML's size after gzip, and in headless "
                     "Chromium on this VM most of the time to the first card is parsing and layout, not the network.")
    return "\n\n".join(lines) + "\n"


def _at_ten_times(r: dict) -> str:
    """What the 10x hourly build spends, and what would take it further down."""
    hourly = (r.get("snapshot_10x") or {}).get("hourly") or {}
    cpu = hourly.get("cpu_phases") or {}
    if not cpu:
        return ""
    parts = ", ".join(f"{name} {cpu[name]:.2f} s" for name in ("write_rows", "env_rows", "indexes", "env_sets",
                                                              "read_rows") if name in cpu)
    return (f" At ten times the catalog both cores are busy for most of the hourly build: the build's own process "
            f"is the longer one ({parts}), while the second process makes the environment search's word index and "
            "sets. Both grow with the number of environments: what would take the build further down is keeping "
            "the environments' rows too and updating only the columns that move each hour (likes, downloads, "
            "trending) in place, with the sort indexes that read them. Two smaller parts: the copy of the previous "
            f"file ({cpu.get('copy_previous', 0):.2f} s, a few hundred MB, faster when the file is still in the "
            f"page cache), and the task sample drawn again from every task ({cpu.get('task_sample', 0):.2f} s), "
            "which, kept like the tasks and drawn only from the changed datasets, would cost a hundredth of that.")


def _broad_prefix_note(r: dict) -> str:
    """How the broad task searches stay bounded at 10x, and what is left of their cost."""
    ten = next((x for key, x in (r.get("scaling") or {}).items() if key.startswith("10")), None)
    per_query = ((ten or {}).get("app") or {}).get("per_query") or {}
    q9, q10 = per_query.get("Q9"), per_query.get("Q10")
    if not q9 or q9.get("p99_ms") is None:
        return ""
    said = f"{num(q9['p50_ms'])} / {num(q9['p99_ms'])} ms p50 / p99"
    q10_said = f" ({num(q10['p50_ms'])} / {num(q10['p99_ms'])} ms)" if q10 and q10.get("p99_ms") is not None else ""
    return (f" A task search of the whole catalog counts its matches up to {COUNT_CAP:,}; past that its total "
            f"(shown as \"about 110,000\") and its facets come from the task sample, one task in {ONE_IN} drawn by a "
            "hash of its key (rlx/snapshot/task_sample.py) with a word index of its own, so the prefix 'gra' "
            f"(about 113,000 matches at 10×: {said}) reads a hundredth of the entries an exact count would, and "
            "its estimate measured within 3 % of the exact count. A search the sample says is narrow reads its "
            f"matches once with their scores; what is left of 'binary sea'{q10_said} is FTS5's bm25 reading each "
            "word's whole list to weigh it ('sea'* is 60,000 tasks at 10×). Prefixes of four letters or more "
            "have no prefix index of their own ('agent', 'task': 30 to 150 ms at 10× in /api/search/tasks, not in "
            "the mix), since FTS5 merges the lists of every word they begin before any limit applies: more "
            "prefix indexes would bound them (prefix='3 4 5', measured at 1×: 2 % more file, 0.56 s more in a "
            "build from nothing, 'task' 6.6 -> 1.3 ms).")


def _task_lookup_note(r: dict) -> str:
    """When an environment search also counts task facets (the home search's task lookup), say what it costs."""
    statements = (r.get("profiles") or {}).get("statements") or {}
    costs = {key: ms for key, rows in statements.items() if not key.startswith("Q9") and not key.startswith("Q10")
             for sql, ms in rows if "FROM task_facets" in sql}
    if not costs:
        return ""
    listed = ", ".join(f"{k} {ms:.1f} ms" for k, ms in costs.items())
    return (" An environment search with words also looks for tasks (`search_tasks`, six shown beside the cards), "
            "and that call counts category and difficulty over every task match although the home search shows "
            f"only the six and their total: {listed} of each such request (the statement profiles below).")
