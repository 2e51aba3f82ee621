"""`python -m benchmarks.mcp_calls [--calls N]`: how long an MCP tool call takes, end to end, on loopback.

`rlx serve` (gunicorn, gevent, its own Redis) over a copy of examples/ with one Harbor dataset indexed; the
official `mcp` client (the dev group) holds one session and calls each tool N times (at most 44: the
per-address rate limit is 240 requests a minute). Prints p50 and p95 per tool.
Not part of `make bench` (no target is set for it); it measures the cost of the transport and the session lookup.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import subprocess
import time
from pathlib import Path

from benchmarks import servers, workspace

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
ENV_ID = "rlx-examples/terminal-basics"
CALLS = [("describe", {}), ("list_tasks", {"page_size": 25}), ("search_tasks", {"query": "csv"}),
         ("get_task", {"ref": "csv-sales-rollup"}), ("read_file", {"ref": "csv-sales-rollup", "path": "tests/test.sh"})]


async def measure(url: str, rounds: int) -> dict[str, list[float]]:
    from mcp import Client

    timings: dict[str, list[float]] = {name: [] for name, _ in CALLS}
    async with Client(url, mode="legacy") as client:
        for name, args in CALLS:  # warm: the first call of each tool reads the index and pack from disk
            await client.call_tool(name, args)
        for _ in range(rounds):
            for name, args in CALLS:
                started = time.perf_counter()
                await client.call_tool(name, args)
                timings[name].append((time.perf_counter() - started) * 1000)
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=40, choices=range(1, 45), metavar="1-44",
                        help="calls of each tool (the app allows 240 MCP requests a minute per address)")
    args = parser.parse_args()
    ws = workspace.create()
    try:
        shutil.copytree(EXAMPLES, ws.source)
        subprocess.run([str(servers.BIN / "rlx"), "index", ENV_ID], env={**ws.env(), "PATH": "/usr/bin:/bin"},
                       check=True, capture_output=True)
        with servers.app_server(ws, workers=1) as base:
            timings = asyncio.run(measure(f"{base}/mcp/d/{ENV_ID}", args.calls))
        for name, values in timings.items():
            values.sort()
            p95 = values[int(0.95 * (len(values) - 1))]
            print(f"{name:13s} p50 {statistics.median(values):6.1f} ms   p95 {p95:6.1f} ms   ({len(values)} calls)")
    finally:
        workspace.remove(ws)


if __name__ == "__main__":
    main()
