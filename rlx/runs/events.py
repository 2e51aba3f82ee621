"""A run's live events: a Redis stream per run (rlx:run:<id>:events), so any web process can follow any run.

Each event is {"kind": ..., "at": ..., **data}. Kinds: status, phase, step, end. When the run ends
the stream is copied to runs/<id>/events.json in the store, so a run stays readable after Redis forgets it.
"""

from __future__ import annotations

import json
import time

from rlx.queue.defaults import KEY_PREFIX
from rlx.runs.record import run_dir
from rlx.store import Store, read_json, write_json

MAX_EVENTS = 5000  # per run; a looping agent's output is trimmed, not kept without bound
MAX_TEXT = 8000  # characters of text in one event
TTL = 7 * 24 * 60 * 60


def stream_key(run_id: str) -> str:
    return f"{KEY_PREFIX}run:{run_id}:events"


def publish(redis, run_id: str, kind: str, **data) -> str:
    for key, value in data.items():
        if isinstance(value, str) and len(value) > MAX_TEXT:
            data[key] = value[:MAX_TEXT] + "…"
    event = {"kind": kind, "at": round(time.time(), 3), **data}
    key = stream_key(run_id)
    with redis.pipeline() as pipe:
        pipe.xadd(key, {"e": json.dumps(event, ensure_ascii=False)}, maxlen=MAX_EVENTS, approximate=True)
        pipe.expire(key, TTL)
        event_id = pipe.execute()[0]
    return event_id.decode() if isinstance(event_id, bytes) else event_id


def read(redis, run_id: str, after: str = "0", block_ms: int | None = None, count: int = 500) -> list[tuple[str, dict]]:
    """Events after the stream id `after` ("0": from the start), waiting up to block_ms for the first one."""
    answer = redis.xread({stream_key(run_id): after}, count=count, block=block_ms)
    events = []
    for _key, entries in answer or []:
        for event_id, values in entries:
            raw = values.get(b"e") or values.get("e")
            event_id = event_id.decode() if isinstance(event_id, bytes) else event_id
            events.append((event_id, json.loads(raw)))
    return events


def archive(redis, store: Store, run_id: str) -> None:
    """Copy the whole stream into the store once the run has ended."""
    events = [e for _id, e in read(redis, run_id, count=MAX_EVENTS)]
    write_json(run_dir(store, run_id) / "events.json", events)


def archived(store: Store, run_id: str) -> list[dict]:
    return read_json(run_dir(store, run_id) / "events.json", default=[]) or []
