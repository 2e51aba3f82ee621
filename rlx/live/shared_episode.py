"""A playground session's episode, held only while it is in use, so a one-session server can be shared.

The server's /ws is opened by the first call that needs an episode (a reset or a tool call) and given back after
EPISODE_IDLE_S without a call, when the episode breaks, and when the visitor leaves. A server that answers
CAPACITY_REACHED puts the session in the Space's line (rlx.live.seats); Wait carries what to tell the visitor.
"""

from __future__ import annotations

import time

from rlx.live.episode import Episode
from rlx.live.episode_answers import EpisodeAnswers
from rlx.live.errors import LiveError
from rlx.live.seats import Line

EPISODE_IDLE_S = 45  # an episode without a call for this long gives the server back


class Wait(Exception):
    """No episode yet: the server is full. `place` is Line.place()'s answer (with the server's own words)."""

    def __init__(self, place: dict):
        super().__init__(place.get("reason") or "the server is full")
        self.place = place


class SharedEpisode:
    def __init__(self, base_url: str, line: Line, idle_s: float | None = None):
        self.base_url, self.line = base_url, line
        self.idle_s = idle_s or EPISODE_IDLE_S
        self.episode: Episode | None = None
        self.waiting = False
        self.done = False  # the last answer ended the episode
        self.answers = EpisodeAnswers()  # what this episode withheld, masked in all it sends after
        self.tasks: dict = {}  # what its server's check said of its Task API splits: name -> size or None
        self._last = time.monotonic()

    @property
    def playing(self) -> bool:
        return self.episode is not None and not self.episode.closed

    def run(self, call):
        """`call(episode)` on this session's episode, opening one first when there is none; Wait when the server
        is full or others wait ahead; LiveError as the episode's calls raise it."""
        if self.playing:
            answer = call(self.episode)
            self._touch()
            return answer
        if not self.line.may_try():
            self.waiting = True
            self.line.join()
            raise Wait(self.line.place())
        episode = Episode(self.base_url)
        try:
            answer = call(episode)
        except LiveError as exc:
            episode.close()
            if exc.reason != "capacity":
                raise
            self._wait(exc)
        self.episode, self.waiting = episode, False
        self.line.hold(time.time() + self.idle_s)
        self._last = time.monotonic()
        return answer

    def _wait(self, refusal: LiveError):
        self.waiting = True
        self.line.server_said(refusal.data.get("max_sessions"), str(refusal.data.get("message") or refusal))
        self.line.join()
        raise Wait(self.line.place())

    def place(self) -> dict:
        return self.line.place()

    def idle_left(self) -> float:
        return self.idle_s - (time.monotonic() - self._last)

    def _touch(self) -> None:
        self._last = time.monotonic()
        self.line.still_holds(time.time() + self.idle_s)

    def give_back(self) -> None:
        """Close the server's socket (so it frees the session) and say so in the Space's line."""
        if self.episode is not None:
            self.episode.close()
            self.episode = None
        self.line.give_back()

    def stop_waiting(self) -> None:
        self.waiting = False
        self.line.leave()

    def leave(self) -> None:
        self.give_back()
        self.line.leave()
