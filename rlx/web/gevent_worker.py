"""gunicorn's gevent worker, taking turns fairly: several new connections accepted per turn of the event loop
instead of one, and a connection giving way after each answer.

With more than one worker, gunicorn sets each gevent server to accept one connection per loop turn, so that one
worker does not take every connection. Under load a turn lasts as long as every request waiting in that worker, so
a new visitor's connection waited in the kernel's queue for many turns: with 200 clients, requests answered in
under a second by the app took up to 20 s to reach it. A few accepts per turn keep new connections moving while
the workers still share them (each accepts only what is waiting when it looks).

A keep-alive connection whose next request is already there was served again at once, so a few busy connections
(a client retrying at once after a 503, say) could keep the worker to themselves. After each answer the
connection now yields to the event loop before reading its next request.

The worker also opens the catalog snapshot while it boots, before its first request (rlx/web/snapshot_boot.py).
Then it collects the garbage of booting and freezes what is left (gc.freeze): the app's ~100,000 long-lived objects
(modules, functions, classes) leave the cyclic collector's generations. Before, every full collection walked them
all: at 10x the catalog, one request in 1,500 to 5,000 per worker stalled 65 to 190 ms in a gen-2 collection,
the only tail in the worker's own CPU time. Now a full collection walks what was made after boot.

Used by `rlx serve` and `rlx demo`: `gunicorn --worker-class rlx.web.gevent_worker.GeventWorker`.
"""

from __future__ import annotations

import gc

import gevent
from gevent.server import StreamServer
from gunicorn.workers import ggevent

from rlx.web.snapshot_boot import open_at_boot

ACCEPTS_PER_TURN = 16


class _Server(StreamServer):
    """A StreamServer that keeps ACCEPTS_PER_TURN: gunicorn's `server.max_accept = 1` after creating it is ignored."""

    @property
    def max_accept(self) -> int:
        return ACCEPTS_PER_TURN

    @max_accept.setter
    def max_accept(self, value: int) -> None:
        pass


class GeventWorker(ggevent.GeventWorker):
    def load_wsgi(self):
        super().load_wsgi()
        open_at_boot(self.wsgi, self.notify)
        freeze_boot_heap()

    def run(self):
        # gunicorn's run() builds its servers from the module's StreamServer; this worker is its own process.
        ggevent.StreamServer = _Server
        super().run()

    def handle_request(self, listener_name, req, sock, addr):
        super().handle_request(listener_name, req, sock, addr)  # raises StopIteration when the connection closes
        gevent.sleep(0)  # behind the connections already waiting, before this one's next request


def freeze_boot_heap() -> None:
    """Keep the objects that live as long as the worker out of every later collection. Collected first, so the
    garbage of booting is freed rather than frozen."""
    gc.collect()
    gc.freeze()
