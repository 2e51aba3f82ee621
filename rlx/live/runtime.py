"""A Space's runtime (stage and hardware) from the Hub, and the two things a visitor can do about it: wake a
sleeping Space as its Hub page does (by visiting its host; anyone, at most once a minute per Space, counted in
Redis) and restart a broken one with their own token (the Hub refuses anyone who may not write to it)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

import redis

from rlx.live.client import SpaceClient
from rlx.live.errors import LiveError, SpaceRefused
from rlx.live.space_hosts import space_base_url, space_subdomain
from rlx.sources.base import RepoRecord
from rlx.sources.errors import AccessDenied, SourceError

STARTING = frozenset({"BUILDING", "APP_STARTING", "RUNNING_BUILDING", "RUNNING_APP_STARTING"})
RUNNING = frozenset({"RUNNING", "RUNNING_BUILDING", "RUNNING_APP_STARTING"})
ASLEEP = frozenset({"SLEEPING", "STOPPED"})
BROKEN = frozenset({"RUNTIME_ERROR", "BUILD_ERROR", "CONFIG_ERROR", "PAUSED"})
STAGE_WORDS = {
    "RUNNING": "Running", "SLEEPING": "Asleep", "STOPPED": "Stopped", "PAUSED": "Paused by its owner",
    "BUILDING": "Building", "APP_STARTING": "Starting", "RUNNING_BUILDING": "Running (a new build is on the way)",
    "RUNNING_APP_STARTING": "Running (restarting)", "RUNTIME_ERROR": "Crashed", "BUILD_ERROR": "Build failed",
    "CONFIG_ERROR": "Misconfigured", "NO_APP_FILE": "No app file", "DELETING": "Being deleted",
}
RUNTIME_CACHE_S = 3  # polling visitors share one Hub call per Space every few seconds
WAKE_EVERY_S = 60


@dataclass
class Runtime:
    stage: str
    hardware: str | None = None
    requested: str | None = None
    local: bool = False  # served on this machine (RLX_SPACE_HOSTS), its stage read from the server itself
    error: str | None = None  # why the Hub could not be asked (the stage shown is then the listing's)

    @property
    def words(self) -> str:
        return STAGE_WORDS.get(self.stage, self.stage.replace("_", " ").capitalize())

    @property
    def running(self) -> bool:
        return self.stage in RUNNING

    @property
    def starting(self) -> bool:
        return self.stage in STARTING

    @property
    def asleep(self) -> bool:
        return self.stage in ASLEEP

    @property
    def broken(self) -> bool:
        return self.stage in BROKEN


class WakeRefused(Exception):
    """Woken too recently (retry_after seconds), or not wakeable at all (retry_after None)."""

    def __init__(self, message: str, retry_after: int | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class RestartRefused(Exception):
    """The restart was not made; `status` is what the page answers (401 sign in, 403 no write access, 503)."""

    def __init__(self, message: str, status: int, retry_after: int | None = None):
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


def _runtime_key(space_id: str) -> str:
    return f"rlx:live:runtime:{space_id}"


def space_runtime(db: redis.Redis, source, record: RepoRecord, local_hosts=(), token: str | None = None) -> Runtime:
    """The Space's runtime now (shared by every process for a few seconds)."""
    cached = db.get(_runtime_key(record.id))
    if cached is not None:
        try:
            return Runtime(**json.loads(cached))
        except (TypeError, ValueError):
            pass
    runtime = _ask_runtime(source, record, local_hosts, token)
    if runtime.error is None:
        db.set(_runtime_key(record.id), json.dumps(asdict(runtime)), ex=RUNTIME_CACHE_S)
    return runtime


def forget_runtime(db: redis.Redis, space_id: str) -> None:
    db.delete(_runtime_key(space_id))


def _ask_runtime(source, record: RepoRecord, local_hosts, token) -> Runtime:
    subdomain = space_subdomain(record)
    if getattr(source, "kind", None) == "folder" and subdomain and subdomain in dict(local_hosts):
        # A folder has no Hub to report a runtime: a Space it serves on this machine runs when it answers.
        try:
            with SpaceClient(dict(local_hosts)[subdomain], deadline=3.0, read_timeout=3.0) as client:
                client.get_json("/health", "The server's health check")
            return Runtime("RUNNING", local=True)
        except LiveError as exc:
            return Runtime("STOPPED", local=True, error=str(exc))
    try:
        data = source.space_runtime(record.id, token=token)
    except SourceError as exc:
        return Runtime(record.stage or "UNKNOWN", error=str(exc))
    hardware = data.get("hardware") if isinstance(data.get("hardware"), dict) else {}
    return Runtime(str(data["stage"]), hardware=_text(hardware.get("current")),
                   requested=_text(hardware.get("requested")))


def _text(value) -> str | None:
    return str(value)[:60] if value else None


def wake(db: redis.Redis, record: RepoRecord, local_hosts=()) -> str:
    """Visit the Space's host, as the Hub page does for a sleeping Space; a sentence saying what was done.
    At most once a minute per Space, whoever asks (WakeRefused with the seconds to wait)."""
    base_url = space_base_url(record, local_hosts)  # SpaceRefused: private, or no host of its own
    key = f"rlx:live:wake:{record.id}"
    if not db.set(key, "1", nx=True, ex=WAKE_EVERY_S):
        wait = max(1, int(db.ttl(key) or WAKE_EVERY_S))
        raise WakeRefused(f"{record.id} was asked to wake up less than a minute ago; it is starting.", wait)
    try:
        with SpaceClient(base_url, read_timeout=8.0, deadline=10.0, max_bytes=256 * 1024) as client:
            client.request("GET", "/", what="The visit that wakes it", same_host_redirects=True)
    except SpaceRefused:
        raise
    except LiveError:
        pass  # a Space that is waking up often answers slowly or with an error page: the visit still counts
    forget_runtime(db, record.id)
    return f"{record.id} was asked to wake up; Spaces usually take a minute or two to start."


def restart(db: redis.Redis, source, record: RepoRecord, token: str | None) -> Runtime:
    """Restart with the visitor's own token, passed per call (never the server's). RestartRefused when there is
    no token, the Hub says they may not write to the Space, or the Hub cannot be reached."""
    if not token:
        raise RestartRefused(f"Sign in with Hugging Face to restart {record.id}: only people who may write to "
                             "it can.", 401)
    try:
        data = source.restart_space(record.id, token)
    except AccessDenied:
        raise RestartRefused(f"Your Hugging Face account may not write to {record.id}, so it cannot restart it; "
                             "ask its owner.", 403) from None
    except SourceError as exc:
        raise RestartRefused(str(exc), 503, retry_after=getattr(exc, "retry_after", 30)) from None
    forget_runtime(db, record.id)
    hardware = data.get("hardware") if isinstance(data.get("hardware"), dict) else {}
    return Runtime(str(data.get("stage") or "APP_STARTING"), hardware=_text(hardware.get("current")),
                   requested=_text(hardware.get("requested")))


def _note_key(space_id: str) -> str:
    return f"rlx:live:note:{space_id}"


def set_local_note(db: redis.Redis, space_id: str, text: str | None) -> None:
    """Why a Space meant to run on this machine (rlx demo) is not live; None clears it."""
    if text:
        db.set(_note_key(space_id), text[:500])
    else:
        db.delete(_note_key(space_id))


def local_note(db: redis.Redis, space_id: str) -> str | None:
    raw = db.get(_note_key(space_id))
    return raw.decode(errors="replace") if isinstance(raw, bytes) else raw
