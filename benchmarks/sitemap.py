"""The sitemap of the synthetic catalog (7,225 environments, ~51,500 tasks), served shard by shard.

The app is built in this process on the published snapshot; /sitemap.xml is fetched, then every shard it names,
each read as a stream (chunks counted and dropped, as a crawler's socket would take them). Reported: time per shard
(p50 and the slowest), URLs and bytes per shard, and how far this process's resident memory rose above what it
was before the first shard: the kernel's peak-RSS mark (VmHWM) is reset first (/proc/self/clear_refs), so the peak
is this measurement's own. A sitemap built as one list in memory would grow it by the whole catalog's size.

`python -m benchmarks.sitemap` makes the synthetic catalog in a temporary folder, builds and publishes its
snapshot, and prints the figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

from benchmarks.stats import percentile
from benchmarks.workspace import Workspace

# Memory: every shard held at once grows this process by about 10 MB (measured); streamed, nothing should stay.
TARGETS = {"rss_growth_mb": 4.0, "shard_p50_ms": 250.0, "urls_per_shard": 10_000}


def _status_kb(field: str) -> int:
    text = Path("/proc/self/status").read_text()
    found = re.search(rf"^{field}:\s+(\d+) kB", text, re.M)
    return int(found.group(1)) if found else 0


def _reset_peak() -> bool:
    """Set VmHWM back to the current RSS (Linux 4.0+); False where that cannot be done."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def _streamed(client, path: str) -> int:
    """The bytes of a streamed answer, read chunk by chunk and not kept."""
    response = client.get(path, buffered=False)
    assert response.status_code == 200, (path, response.status_code)
    size = 0
    try:
        for chunk in response.response:
            size += len(chunk.encode() if isinstance(chunk, str) else chunk)
    finally:
        response.close()
    return size


def measure(ws: Workspace) -> dict:
    from rlx import create_app
    from rlx.config import Config

    app = create_app(Config.from_env({**ws.env(), "REDIS_URL": "redis://127.0.0.1:1/0",  # never dialled
                                      "RLX_PUBLIC_URL": "https://explorer.example.org"}))
    client = app.test_client()
    index = client.get("/sitemap.xml")  # also loads the snapshot: its copy and connections are not the sitemap's
    assert index.status_code == 200, index.status_code
    shards = re.findall(r"<loc>https://explorer\.example\.org(/sitemap-\d+\.xml)</loc>", index.get_data(as_text=True))
    _streamed(client, shards[0])  # warm: templates, the first pages of the tables
    rss_before = _status_kb("VmRSS")
    peak_reset = _reset_peak()
    times, cpu, sizes, urls = [], [], [], []
    for path in shards:
        started, cpu_started = time.perf_counter(), time.process_time()
        size = _streamed(client, path)
        times.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - cpu_started) * 1000)  # this process's own work: steadier under load
        sizes.append(size)
    peak = _status_kb("VmHWM") if peak_reset else _status_kb("VmRSS")
    for path in shards:  # counted apart, so the timing above reads the stream as a crawler would
        urls.append(client.get(path).get_data(as_text=True).count("<url>"))
    return {
        "shards": len(shards), "urls": sum(urls), "urls_max": max(urls), "bytes_max": max(sizes),
        "shard_p50_ms": round(percentile(times, 50), 1), "shard_max_ms": round(max(times), 1),
        "shard_cpu_p50_ms": round(percentile(cpu, 50), 1),
        "all_shards_s": round(sum(times) / 1000, 2), "rss_before_mb": round(rss_before / 1024, 1),
        "rss_growth_mb": round(max(0, peak - rss_before) / 1024, 1), "peak_measured": peak_reset,
        "targets": TARGETS,
    }


def targets(r: dict) -> list[list[str]]:
    x = r.get("sitemap")
    if not x:
        return []
    t = x["targets"]
    return [["sitemap: memory while serving every shard", f"≤ {t['rss_growth_mb']:.0f} MB above the start",
             f"{x['rss_growth_mb']:.1f} MB ({x['shards']} shards, {x['urls']:,} URLs)",
             "**met**" if x["rss_growth_mb"] <= t["rss_growth_mb"] else "**missed**"]]


def render(r: dict) -> str | None:
    x = r.get("sitemap")
    if not x:
        return None
    t = x["targets"]
    rows = [
        ("shards (URLs in all; the most in one)", f"{x['shards']} ({x['urls']:,}; {x['urls_max']:,})",
         f"≤ {t['urls_per_shard']:,} URLs each"),
        ("time per shard: p50 / slowest", f"{x['shard_p50_ms']:.0f} / {x['shard_max_ms']:.0f} ms",
         f"p50 ≤ {t['shard_p50_ms']:.0f} ms"),
        ("CPU time per shard (p50)", f"{x.get('shard_cpu_p50_ms', float('nan')):.0f} ms", ""),
        ("every shard, one after another", f"{x['all_shards_s']:.2f} s", ""),
        ("largest shard", f"{x['bytes_max'] / 1e6:.2f} MB", ""),
        ("resident memory: before / peak growth", f"{x['rss_before_mb']:.0f} MB / {x['rss_growth_mb']:.1f} MB"
         + ("" if x["peak_measured"] else " (RSS after, peak not measurable here)"),
         f"growth ≤ {t['rss_growth_mb']:.0f} MB"),
    ]
    lines = ["| figure | measured | target |", "| --- | --: | --: |"] + [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return ("## m. The sitemap, shard by shard\n\n`benchmarks/sitemap.py`: the app in this process on the published "
            "snapshot of the synthetic catalog; /sitemap.xml, then every shard it names, each read as a stream. "
            "The peak is the kernel's VmHWM, reset just before the first shard.\n\n" + "\n".join(lines) + "\n")


def main() -> None:
    from benchmarks import snapshot_build, workspace

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="keep the workspace in this folder")
    args = parser.parse_args()
    ws = workspace.create(args.keep)
    try:
        workspace.generate(ws)
        snapshot_build.measure(ws, 1)
        print(json.dumps(measure(ws), indent=2))
    finally:
        if args.keep is None:
            workspace.remove(ws)


if __name__ == "__main__":
    main()
