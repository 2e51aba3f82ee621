"""`python -m benchmarks.playground [--steps N] [--sessions N]`: what the playground's relay costs, on loopback.

The bundled echo-env served by a real openenv server (its own venv, MAX_CONCURRENT_ENVS raised so it is not the
limit), and `rlx serve` with ONE gunicorn gevent worker over a folder holding that Space, RLX_SPACE_HOSTS pointing
at the server. Two figures:
- per step: p50 of N steps sent straight to the server's /ws, and of N steps sent through the playground's
  WebSocket (the browser's path: form JSON in, HTML fragments out); the difference is what the relay adds;
- the same N steps deep into a long episode (after LONG_EPISODE steps): each step's answer draws the reward plot
  of the whole episode again, so this is where a cost per step that grows with the episode shows;
- 100 playground sessions held open at once by that one process, each resetting and stepping: how many of the
  steps were answered, and their p50/p95.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path

from benchmarks import servers
from benchmarks.markdown import met, table

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
ECHO = "rlx-examples/echo-env"
TARGET_OVERHEAD_MS = 5.0
SESSIONS = 100
STEPS = 300
STEPS_PER_SESSION = 5
LONG_EPISODE = 2000


def measure(steps: int = STEPS, sessions: int = SESSIONS) -> dict:
    from rlx.live.localenv import start_server

    root = Path(tempfile.mkdtemp(prefix="rlx-bench-play-"))
    process, server_url = start_server(env={"MAX_CONCURRENT_ENVS": str(sessions + 20)})
    try:
        shutil.copytree(EXAMPLES / "spaces" / ECHO, root / "source" / "spaces" / ECHO)
        env = {"STORAGE_DIR": str(root / "data"), "RLX_SOURCE": str(root / "source"), "SESSION_SECRET": "bench",
               "RLX_SPACE_HOSTS": f"rlx-examples-echo-env={server_url}", "RLX_PROXY_HOPS": "1"}
        command = [str(servers.BIN / "rlx"), "serve", "--port", str(port := servers.free_port()), "--workers", "1"]
        with servers._process(command, {k: v for k, v in os.environ.items() if k != "REDIS_URL"} | env,
                              root / "app.log") as app:
            app_url = f"http://127.0.0.1:{port}"
            servers._wait_until_up(f"{app_url}/healthz", app, root / "app.log")
            direct = _direct_steps(server_url, steps)
            relayed = _relayed_steps(app_url, steps)
            deep = _relayed_steps(app_url, steps, warm=LONG_EPISODE)
            held = _held_sessions(app_url, sessions)
    finally:
        process.terminate()
        process.wait(10)
        shutil.rmtree(root, ignore_errors=True)
    overhead = relayed["p50_ms"] - direct["p50_ms"]
    return {"steps": steps, "direct": direct, "relayed": relayed, "overhead_p50_ms": round(overhead, 3),
            "deep": deep, "long_episode": LONG_EPISODE, "held": held, "met": {"overhead": overhead <= TARGET_OVERHEAD_MS,
                                  "held": held["answered"] == held["expected"] and held["opened"] == sessions}}


def _summary(times_ms: list[float]) -> dict:
    ordered = sorted(times_ms)
    return {"p50_ms": round(statistics.median(ordered), 3),
            "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 3), "n": len(ordered)}


def _direct_steps(server_url: str, steps: int) -> dict:
    from rlx.live.episode import Episode

    with Episode(server_url) as episode:
        episode.reset()
        for _ in range(20):  # warm
            episode.step({"message": "warm"})
        times = []
        for i in range(steps):
            started = time.perf_counter()
            episode.step({"message": f"step {i}"})
            times.append((time.perf_counter() - started) * 1000)
    return _summary(times)


class _Player:
    def __init__(self, app_url: str, cookie: str, address: str = "198.51.100.1"):
        from websockets.sync.client import connect

        # Each session from an address of its own (the app trusts one proxy hop here): the per-visitor cap counts
        # an anonymous visitor by address, and a hundred visitors are what this measures.
        self.ws = connect(app_url.replace("http", "ws", 1) + f"/s/{ECHO}/play/ws", open_timeout=30,
                          additional_headers={"Origin": app_url, "Cookie": cookie, "X-Forwarded-For": address},
                          compression=None)
        self.first = self.ws.recv(timeout=60)

    def ask(self, **form) -> str:
        self.ws.send(json.dumps(form))
        return self.ws.recv(timeout=60)

    def close(self) -> None:
        self.ws.close()


def _cookie(app_url: str) -> str:
    status, headers, _ = servers.get(f"{app_url}/s/{ECHO}/play")  # also runs the check the action form needs
    assert status == 200, f"the playground page answered {status}"
    return headers["Set-Cookie"].split(";", 1)[0]


def _relayed_steps(app_url: str, steps: int, warm: int = 20) -> dict:
    player = _Player(app_url, _cookie(app_url))
    try:
        assert "Ready. Reset" in player.first, player.first[:300]
        player.ask(op="reset")
        for _ in range(warm):
            player.ask(op="step", message="warm")
        times = []
        for i in range(steps):
            started = time.perf_counter()
            answer = player.ask(op="step", message=f"step {i}")
            times.append((time.perf_counter() - started) * 1000)
            assert f"step {i}" in answer, answer[:300]
    finally:
        player.close()
    return _summary(times)


def _held_sessions(app_url: str, sessions: int) -> dict:
    cookies = [_cookie(app_url) for _ in range(sessions)]  # one visitor each: the per-visitor cap is 3
    players: list = [None] * sessions
    failures: list[str] = []
    times: list[float] = []
    lock = threading.Lock()
    opened = threading.Barrier(sessions + 1)

    def play(i: int) -> None:
        try:
            players[i] = _Player(app_url, cookies[i], f"198.51.{100 + i // 250}.{1 + i % 250}")
            if "Ready. Reset" not in players[i].first:
                raise RuntimeError(players[i].first[:200])
        except Exception as exc:  # counted, and reported
            with lock:
                failures.append(f"open: {exc}")
        opened.wait()
        if players[i] is None:
            return
        try:
            players[i].ask(op="reset")
            for k in range(STEPS_PER_SESSION):
                started = time.perf_counter()
                answer = players[i].ask(op="step", message=f"s{i}-{k}")
                elapsed = (time.perf_counter() - started) * 1000
                with lock:
                    if f"s{i}-{k}" in answer:
                        times.append(elapsed)
                    else:
                        failures.append(f"step: {answer[:200]}")
        except Exception as exc:
            with lock:
                failures.append(f"step: {exc}")

    threads = [threading.Thread(target=play, args=(i,)) for i in range(sessions)]
    for thread in threads:
        thread.start()
    opened.wait()  # every session is open (or failed to) before any steps
    open_now = sum(p is not None for p in players)
    for thread in threads:
        thread.join()
    for player in players:
        if player is not None:
            player.close()
    return {"sessions": sessions, "opened": open_now, "expected": sessions * STEPS_PER_SESSION,
            "answered": len(times), "failures": failures[:5], "failed": len(failures),
            **(_summary(times) if times else {})}


def render(r: dict) -> str | None:
    p = r.get("playground")
    if not p:
        return None
    h = p["held"]
    return ("## i. The playground's relay\n\n"
            "The bundled echo-env on a real openenv server, `rlx serve` with one gevent worker relaying the "
            f"playground's WebSocket to it. {p['steps']} steps on one episode, straight to the server's /ws and "
            f"through the playground; then {h['sessions']} sessions held open at once by that one process, each "
            f"resetting and taking {STEPS_PER_SESSION} steps.\n\n"
            + table(["", "measured"], [
                ["step p50 / p95, straight to /ws", f"{p['direct']['p50_ms']:.2f} / {p['direct']['p95_ms']:.2f} ms"],
                ["step p50 / p95, through the playground", f"{p['relayed']['p50_ms']:.2f} / "
                                                           f"{p['relayed']['p95_ms']:.2f} ms"],
                ["what the relay adds (p50)", f"**{p['overhead_p50_ms']:.2f} ms**"],
                *([[f"step p50 / p95 through the playground, after {p['long_episode']:,} steps of the episode",
                    f"{p['deep']['p50_ms']:.2f} / {p['deep']['p95_ms']:.2f} ms"]] if "deep" in p else []),
                [f"{h['sessions']} sessions: opened / steps answered", f"**{h['opened']}** / "
                                                                       f"**{h['answered']}** of {h['expected']}"],
                ["their steps p50 / p95", f"{h.get('p50_ms', 0):.1f} / {h.get('p95_ms', 0):.1f} ms"],
            ], "ll"))


def targets(r: dict) -> list[list[str]]:
    p = r.get("playground")
    if not p:
        return []
    h = p["held"]
    return [["playground relay overhead per step (p50, loopback)", f"≤ {TARGET_OVERHEAD_MS:g} ms",
             f"{p['overhead_p50_ms']:.2f} ms", met(p["met"]["overhead"])],
            [f"{h['sessions']} concurrent playground sessions, one gevent worker", "every step answered",
             f"{h['answered']} of {h['expected']} steps, {h['opened']} sessions open", met(p["met"]["held"])]]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--sessions", type=int, default=SESSIONS)
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.steps, args.sessions), indent=1))


if __name__ == "__main__":
    main()
