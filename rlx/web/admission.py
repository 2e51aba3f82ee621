"""Taking turns, and turning requests away early when a worker is saturated.

A gevent worker serves one request at a time on its core; the others wait. Two things made some of them wait far
longer than their share (measured with 200 clients: p50 20 ms, p99 15 s): a keep-alive connection whose next
request is already there is served again without giving way, and new connections wait in the kernel for one
accept per loop turn (rlx.web.gevent_worker fixes that one). So every request first yields once to the event loop,
which puts it behind those already waiting: a plain first-come, first-served queue.

With a fair queue the wait is the work ahead: requests in flight times the time the worker takes per request. That
time is learned from the waits themselves (each admitted request's wait for its turn, divided by the requests that
were ahead of it: a moving average), so it counts everything the worker spends, refusals, gzip, the server's own
work, and other processes on the same cores included. When the expected wait passes MAX_WAIT_S, a new request gets
503 with Retry-After at once, instead of an answer many seconds later; MAX_IN_FLIGHT caps the queue whatever the
estimate. Health probes and WebSockets (the playground caps its own) are never turned away.
"""

from __future__ import annotations

import math
import threading
import time

from flask import Flask, current_app, g, request

MAX_WAIT_S = 1.0  # the queueing a visitor is asked to accept before being told to come back
MAX_IN_FLIGHT = 256  # per worker process, whatever the estimate says
MIN_IN_FLIGHT = 8  # below this many, nobody is turned away (a single slow request is not saturation)
EXEMPT = ("/healthz", "/readyz", "/static/")
_EWMA_WEIGHT = 0.1  # of the newest request in the moving average of service times


class Admission:
    """This process's queue: how many requests are in, and how long one takes to serve."""

    def __init__(self, max_wait_s: float = MAX_WAIT_S, max_in_flight: int = MAX_IN_FLIGHT,
                 min_in_flight: int = MIN_IN_FLIGHT):
        self.max_wait_s, self.max_in_flight, self.min_in_flight = max_wait_s, max_in_flight, min_in_flight
        self.in_flight = 0
        self.per_request_s = 0.005  # until measured: a typical search answer
        self.shed = 0
        self._lock = threading.Lock()

    def expected_wait_s(self) -> float:
        return self.in_flight * self.per_request_s

    def enter(self) -> int | None:
        """Count a request in and return how many are ahead of it, or None when it should be turned away."""
        with self._lock:
            full = self.in_flight >= self.max_in_flight
            busy = self.in_flight >= self.min_in_flight and self.expected_wait_s() > self.max_wait_s
            if full or busy:
                self.shed += 1
                return None
            self.in_flight += 1
            return self.in_flight - 1

    def waited(self, seconds: float, ahead: int) -> None:
        """A request's turn came after `seconds` behind `ahead` others: learn the time per request."""
        if ahead > 0:
            with self._lock:
                self.per_request_s += _EWMA_WEIGHT * (seconds / ahead - self.per_request_s)

    def leave(self) -> None:
        with self._lock:
            self.in_flight -= 1


def init_app(app: Flask) -> None:
    app.extensions["rlx.admission"] = Admission()
    take_turn = _turn_taker()

    @app.before_request
    def _admit():
        if request.path.startswith(EXEMPT) or _is_websocket():
            return None
        admission: Admission = current_app.extensions["rlx.admission"]
        ahead = admission.enter()
        if ahead is None:
            return _busy(admission)
        g.rlx_admitted = True
        if take_turn is not None:
            started = time.perf_counter()
            take_turn()  # behind every request already waiting in this worker
            admission.waited(time.perf_counter() - started, ahead)
        return None

    @app.teardown_request
    def _release(exc):
        if g.pop("rlx_admitted", False):
            current_app.extensions["rlx.admission"].leave()


def _is_websocket() -> bool:
    """A playground's WebSocket lives for minutes: counted as a request in flight it would look like saturation
    to everyone else. The playground caps its sessions itself (rlx.live.slots)."""
    return request.headers.get("Upgrade", "").lower() == "websocket"


def _busy(admission: Admission):
    from rlx.http.error_answers import error_response

    wait = admission.expected_wait_s()
    retry_after = max(1, min(30, math.ceil(wait)))
    return error_response(503, f"The server is busy: {admission.in_flight} requests are ahead of yours (about "
                               f"{wait:.1f} s of work). Try again in {retry_after} s.", retry_after=retry_after)


def _turn_taker():
    """gevent.sleep(0) where sockets are cooperative (gunicorn's gevent workers); None elsewhere (tests, the
    threaded development server), where the operating system takes turns and the time per request keeps its
    starting value."""
    try:
        import gevent
        from gevent import monkey
    except ImportError:  # pragma: no cover - gevent is a dependency
        return None
    if not monkey.is_module_patched("socket"):
        return None
    return lambda: gevent.sleep(0)
