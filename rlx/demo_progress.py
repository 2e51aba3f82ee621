"""What `rlx demo` says while it starts: each stage as it begins, then one line once /readyz answers, with the time
it took, so a person watching the terminal knows it is working and when to open the browser."""

from __future__ import annotations

import sys
import threading
import time
import urllib.request

POLL_S = 0.25
GIVE_UP_S = 300


def say(message: str) -> None:
    print(f"rlx: {message}", file=sys.stderr, flush=True)


def announce_when_ready(url: str, started: float) -> threading.Thread:
    """A daemon thread that polls `url`/readyz and says once when it answers 200 (silent if it never does)."""
    def wait() -> None:
        deadline = time.monotonic() + GIVE_UP_S
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(url + "readyz", timeout=2) as answer:
                    if answer.status == 200:
                        say(f"ready after {time.monotonic() - started:.0f} s: open {url}")
                        return
            except OSError:
                pass
            time.sleep(POLL_S)

    thread = threading.Thread(target=wait, name="demo-ready", daemon=True)
    thread.start()
    return thread
