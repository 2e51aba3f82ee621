"""A playground session's episode, held only while it is in use, so a one-session server can be shared.

The server's /ws is opened by the first call that needs an episode (a reset or a tool call) and given back after
EPISODE_IDLE_S without a call, when the episode breaks, and when the visitor leaves. A server that answers
CAPACITY_REACHED puts the session in the Space's line (rlx.live.seats); Wait carries what to tell the visitor.
Once someone waits, the player's turn is bounded: TURN_S from the first waiter's arrival (or from the player's
start, if later), told on every answer, and then the server passes on (TurnOver), whether or not they keep moving.
"""

from __future__ import annotations

import time

from rlx.live.episode import Episode
from rlx.live.episode_answers import EpisodeAnswers
from rlx.live.errors import LiveError
from rlx.live.seats import Line

EPISODE_IDLE_S = 45  # an episode without a call for this long gives the server back
# The line is told this session holds the server a little longer than it does, and told again only once the truth
# has moved past that: never earlier than the truth and at most two slacks later, so a waiter may wait a second or
# two longer but never tries a server still held, and a player's steps do not each write to Redis.
HOLD_SLACK_S = 1.0
TURN_S = 300  # while someone waits, a player keeps the server at most this long more (or until the episode ends)


class TurnOver(Exception):
    """The player's turn ended while someone waited: the server was given back; the message says so."""


class Wait(Exception):
    """No episode yet: the server is full. `place` is Line.place()'s answer (with the server's own words)."""

    def __init__(self, place: dict):
        super().__init__(place.get("reason") or "the server is full")
        self.place = place


class SharedEpisode:
    def __init__(self, base_url: str, line: Line, idle_s: float | None = None, turn_s: float | None = None):
        self.base_url, self.line = base_url, line
        self.idle_s = idle_s or EPISODE_IDLE_S
        self.turn_s = turn_s or TURN_S
        self.turn_ends: float | None = None  # epoch seconds: while someone waits, this player's turn ends then
        self._held_at = 0.0
        self._told_until = 0.0  # what the line was last told this session holds the server until (epoch seconds)
        self._line_said: tuple[float | None] | None = None  # first_waiting_since, as asked during this call
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
        self._line_said = None
        if self.playing:
            self._mind_the_turn()
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
        self._held_at, self.turn_ends = time.time(), None
        self._told_until = time.time() + self.idle_s + HOLD_SLACK_S
        self.line.hold(self._told_until)
        self._last = time.monotonic()
        return answer

    def _mind_the_turn(self) -> None:
        """Before a call on a held episode: TurnOver (the server given back) once this turn has ended."""
        if self.end_turn_if_over():
            raise TurnOver(self.turn_over_words())

    def end_turn_if_over(self) -> bool:
        """Whether someone waits, and so when this turn ends (asked of the line now); the server is given back, and
        True said, once that moment has passed."""
        since = self.line.first_waiting_since()
        self._line_said = (since,)
        self.turn_ends = None if since is None else max(since, self._held_at) + self.turn_s
        left = self.turn_left()
        if left is None or left > 0:
            return False
        self.give_back()
        return True

    def someone_waits(self) -> bool:
        """Whether a live visitor waits for this server, as the line said during the last call (asked now if that
        call did not ask it)."""
        if self._line_said is None:
            self._line_said = (self.line.first_waiting_since(),)
        return self._line_said[0] is not None

    def turn_left(self) -> float | None:
        """Seconds this player keeps the server while someone waits (as of its last call); None: nobody waits."""
        return None if self.turn_ends is None else self.turn_ends - time.time()

    def turn_words(self) -> str:
        """What a player is told on every answer while someone waits."""
        left = self.turn_left()
        if left is None or not self.playing:
            return ""
        return (f"Someone is waiting for this server: you keep it {max(0, round(left))} s more, or until this "
                "episode ends, then it passes to them.")

    def turn_over_words(self) -> str:
        return (f"Your turn is over: someone waited for this server while you played, and a player keeps it at "
                f"most {self.turn_s:g} s once someone waits, so it passed to them. Reset to join the line.")

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
        until = time.time() + self.idle_s
        until = until if self.turn_ends is None else min(until, self.turn_ends)
        if until > self._told_until or until < self._told_until - 2 * HOLD_SLACK_S:
            self._told_until = until + HOLD_SLACK_S
            self.line.still_holds(self._told_until)

    def give_back(self) -> None:
        """Close the server's socket (so it frees the session) and say so in the Space's line."""
        if self.episode is not None:
            self.episode.close()
            self.episode = None
        self.turn_ends = None
        self.line.give_back()

    def stop_waiting(self) -> None:
        self.waiting = False
        self.line.leave()

    def leave(self) -> None:
        self.give_back()
        self.line.leave()
