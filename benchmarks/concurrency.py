"""(g) 200 concurrent clients on /api/search: throughput, the latency tail, what was turned away, and memory.

A fresh `rlx serve` (gunicorn, 2 gevent workers) over the workspace's snapshot, warmed on every path, then wrk
with 200 keep-alive connections cycling through the environment searches of the mix (Q1–Q8 and the home page's
request). Counted: answers by status (503 is the app shedding load, with Retry-After), socket errors, requests
slower than 10 s; each gunicorn worker's resident memory after warming and after the load. The machine's load
average is noted before and after: other work on the two cores moves every figure here.

`python -m benchmarks.concurrency [--seconds S] [--keep DIR]` runs it alone (building the catalog and snapshot).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
from pathlib import Path

from benchmarks import search, servers, wrk
from benchmarks.markdown import TODO_ROUTE, num, table
from benchmarks.workspace import Workspace

CLIENTS = 200
SCRIPT = Path(__file__).with_name("wrk_statuses.lua")
TIMEOUT_S = 30  # wrk's: a request slower than this is an error instead of a latency


def paths() -> list[str]:
    return [q.app for q in search.query_mix(None) if q.app.startswith("/api/search?") or q.app == "/api/search"]


def measure(ws: Workspace, seconds: float, clients: int = CLIENTS) -> dict:
    with servers.app_server(ws, log_name="app-200") as url:
        port = int(url.rsplit(":", 1)[1])
        for _ in range(4):  # both workers, every path, warm
            for path in paths():
                servers.get(url + path)
        before = worker_memory(port)
        load_before = _load_average()
        result = run_wrk(url, paths(), clients, seconds)
        load_after = _load_average()
        after = worker_memory(port)
    statuses = result["statuses"]
    seconds_run = result["duration_us"] / 1e6
    return {
        "clients": clients, "seconds": seconds_run, "requests": result["requests"],
        "rps": result["requests"] / seconds_run if seconds_run else 0.0,
        "served_rps": statuses.get("200", 0) / seconds_run if seconds_run else 0.0,
        "p50_ms": result["p50"] / 1000, "p90_ms": result["p90"] / 1000, "p99_ms": result["p99"] / 1000,
        "p999_ms": result["p999"] / 1000, "max_ms": result["max"] / 1000,
        "over_10s": round(result["share_over"] * result["requests"]),
        "statuses": statuses, "shed": statuses.get("503", 0),
        "errors": {k: v for k, v in result["errors"].items() if k != "status" and v},
        "other_statuses": {k: v for k, v in statuses.items() if k not in ("200", "503")},
        "memory_before_mb": before, "memory_after_mb": after,
        "load_before": load_before, "load_after": load_after,
    }


def run_wrk(base_url: str, paths_: list[str], connections: int, seconds: float) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".paths", delete=False) as fh:
        fh.write("\n".join(paths_) + "\n")
        paths_file = fh.name
    try:
        command = ["wrk", "-t2", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--timeout", f"{TIMEOUT_S}s",
                   "-s", str(SCRIPT), base_url, "--", paths_file, wrk.ACCEPT_ENCODING]
        done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + TIMEOUT_S + 60)
    finally:
        Path(paths_file).unlink(missing_ok=True)
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("{\"requests\"")), None)
    if done.returncode != 0 or line is None:
        raise RuntimeError(f"wrk failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}")
    return json.loads(line)


def worker_memory(port: int) -> dict[str, float]:
    """Resident memory (MB) of the gunicorn processes serving `port`: the master, and each worker by pid."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            status = (entry / "status").read_text()
        except OSError:
            continue
        if "gunicorn" not in command or f":{port} " not in command + " ":
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        rss_mb = int(fields["VmRSS"].split()[0]) / 1024
        found[int(entry.name)] = (int(fields["PPid"]), rss_mb)
    masters = {pid for pid, (ppid, _) in found.items() if ppid not in found}
    return {("master" if pid in masters else f"worker {pid}"): round(rss, 1) for pid, (_, rss) in sorted(found.items())}


def _load_average() -> float | None:
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError):
        return None


def render(r: dict) -> str:
    c = r.get("concurrency")
    if not c:
        return f"## g. {CLIENTS} concurrent clients on /api/search\n\n" + TODO_ROUTE + "\n"
    errors = ", ".join(f"{k} {v}" for k, v in c["errors"].items()) or "none"
    others = ", ".join(f"{k}: {v}" for k, v in c["other_statuses"].items()) or "none"
    memory = [[name, num(c["memory_before_mb"].get(name), 1), num(after, 1)]
              for name, after in c["memory_after_mb"].items()]
    return (f"## g. {c['clients']} concurrent clients on /api/search\n\n"
            f"A fresh `rlx serve` (gunicorn, 2 gevent workers), warmed, then wrk with {c['clients']} keep-alive "
            f"connections for {c['seconds']:.0f} s cycling through the environment searches of the mix. wrk does "
            "not honour Retry-After: a client turned away asks again at once, so the 503 count is a worst case. "
            f"The machine's load average was {num(c['load_before'], 1)} before and {num(c['load_after'], 1)} after "
            "(other work on the same two cores slows every figure).\n\n"
            + table(["", "measured"], [
                ["answers per second (all / 200 OK)", f"**{c['rps']:,.0f}** / **{c['served_rps']:,.0f}**"],
                ["latency p50 / p90 / p99 / p99.9 / max (every answer)",
                 f"**{c['p50_ms']:,.0f} / {c['p90_ms']:,.0f} / {c['p99_ms']:,.0f} / {c['p999_ms']:,.0f} / "
                 f"{c['max_ms']:,.0f} ms**"],
                ["requests slower than 10 s", f"**{c['over_10s']}** of {c['requests']:,}"],
                ["turned away (503 with Retry-After)", f"**{c['shed']:,}**"],
                ["socket errors / other statuses", f"{errors} / {others}"],
            ], "ll")
            + "\nResident memory of the gunicorn processes (MB), warmed and after the load:\n\n"
            + table(["process", "warmed", "after the load"], memory, "lrr"))


def targets(r: dict) -> list[list[str]]:
    c = r.get("concurrency")
    if not c:
        return []
    ok = not c["errors"] and not c["other_statuses"] and c["over_10s"] == 0
    return [[f"{c['clients']} concurrent clients on /api/search", "no errors, no request over 10 s (503 when full)",
             f"p99 {c['p99_ms']:,.0f} ms, max {c['max_ms']:,.0f} ms; {c['shed']:,} turned away",
             "**met**" if ok else "**missed**"]]


def main(argv: list[str] | None = None) -> None:
    from benchmarks import snapshot_build, workspace

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--clients", type=int, default=CLIENTS)
    parser.add_argument("--keep", type=Path, help="a workspace kept from an earlier run (reused when it has a "
                                                  "snapshot)")
    args = parser.parse_args(argv)
    if args.keep and (args.keep / "catalog.db").exists():
        ws = Workspace(args.keep)
    else:
        ws = workspace.create(args.keep)
        workspace.generate(ws)
        snapshot_build.measure(ws, 1)
    try:
        print(json.dumps(measure(ws, args.seconds, args.clients), indent=1))
    finally:
        if args.keep is None:
            workspace.remove(ws)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
