"""What can go wrong when talking to a Space, each as one sentence a page can show."""

from __future__ import annotations


class LiveError(Exception):
    """A Space's server could not be asked or did not answer usefully. `reason` is a short code pages and tests
    can branch on (refused, timeout, unreachable, redirect, too_large, status, not_json, server, capacity); the
    message is the sentence to show."""

    def __init__(self, message: str, reason: str, status: int | None = None, data: dict | None = None):
        super().__init__(message)
        self.reason = reason
        self.status = status  # the server's HTTP status, when it answered one
        self.data = data or {}  # what the server said beside its sentence (a full server's max_sessions)


class SpaceRefused(LiveError):
    """We will not call this Space at all: private, no host of its own, or a path that leaves its host."""

    def __init__(self, message: str):
        super().__init__(message, "refused")
