"""The playground /s/<org>/<name>/play: a Space's environment played from the browser.

The page holds forms (reset, a Task API task, a step from the action schema, state, an MCP tool call) that htmx's
ws extension sends as JSON over one WebSocket to /play/ws. That socket is relayed, one message at a time, to the
server's own /ws (rlx.live.episode): each answer comes back as HTML fragments swapped in by id (the step log,
the reward plot, the status line). With JS off the page says what the playground needs.

A session holds a slot (rlx.live.slots: per visitor and overall, in Redis), ends when its visitor is quiet for
IDLE_S, and closes the server's socket whatever way it ends.
"""

from __future__ import annotations

import json
import logging

from flask import Blueprint, render_template, request
from flask_sock import Sock
from redis.exceptions import RedisError

from rlx.live import LiveError, SpaceRefused, cached_check, check_space, space_base_url, verified_openenv
from rlx.live import slots
from rlx.live.episode import Episode
from rlx.live.play_view import BadAction, action_fields, action_from_form, bounded_int, observation_parts
from rlx.live.play_view import reward_points, reward_text, tool_result_parts
from rlx.queue import get_redis
from rlx.http.origin import same_origin
from rlx.http.render import render
from rlx.web.spaces import _local_hosts, _record
from rlx.auth.visitor import cap_holder
from rlx.web.visitor import visitor_id

log = logging.getLogger("rlx.playground")
bp = Blueprint("playground", __name__)
sock = Sock()
MAX_MESSAGE = 256 * 1024  # one form from the browser
NORMAL_CLOSE = 1000  # htmx's ws extension reconnects after other codes; an ended session must stay ended


def init_app(app) -> None:
    app.config.setdefault("SOCK_SERVER_OPTIONS", {"max_message_size": MAX_MESSAGE, "ping_interval": 25})
    sock.init_app(app)
    app.register_blueprint(bp)


def _offer(record):
    """What the playground can offer for this Space, from its last check (made now when there is none)."""
    db = get_redis()
    report = cached_check(db, record.id)
    if report is None or report.get("checking"):
        report = check_space(db, record, _local_hosts())
    schema = (report or {}).get("schema") or {}
    task_api = {env: [s for s in (answer.get("splits") or []) if isinstance(s, dict) and s.get("name")]
                for env, answer in ((report or {}).get("task_api") or {}).items() if not answer.get("error")}
    return {"report": report, "verified": verified_openenv(report), "fields": action_fields(schema.get("action")),
            "tools": (report or {}).get("tools") or [], "splits": [s for env in task_api.values() for s in env]}


@bp.get("/s/<org>/<name>/play")
def play_page(org: str, name: str):
    record = _record(org, name)
    refusal = None
    try:
        space_base_url(record, _local_hosts())
    except SpaceRefused as exc:
        refusal = str(exc)
    offer = _offer(record) if refusal is None else {"report": None, "verified": False}
    visitor_id(create=True)  # the cookie that makes this visitor's sessions theirs
    # A path, not url_for's ws:// URL: htmx makes it ws: or wss: after the page's own scheme (behind TLS too).
    response = render("pages/playground.html", record=record, org=org, name=name, refusal=refusal,
                      socket_path=f"/s/{org}/{name}/play/ws", **offer)
    response.headers["Cache-Control"] = "no-store"
    return response


@sock.route("/s/<org>/<name>/play/ws", bp=bp)
def play_socket(ws, org: str, name: str):
    """One playground session. Every way it ends says why in the status line, then closes with 1000."""
    send = _sender(ws)
    if not same_origin():
        return _end(ws, send, "Cross-site pages may not open a playground here.")
    try:
        record = _record(org, name)
        base_url = space_base_url(record, _local_hosts())
    except SpaceRefused as exc:
        return _end(ws, send, str(exc))
    except Exception as exc:  # abort(404) and Hub trouble: the socket is already open, so say it there
        return _end(ws, send, getattr(exc, "description", None) or "This Space could not be looked up; try again.")
    try:
        slot = slots.take_slot(get_redis(), cap_holder())
    except slots.SlotRefused as exc:
        return _end(ws, send, str(exc))
    except RedisError:
        return _end(ws, send, "Playground sessions are unavailable for a moment; reload in a few seconds.")
    try:
        fields = action_fields(((cached_check(get_redis(), record.id) or {}).get("schema") or {}).get("action"))
        with Episode(base_url) as episode:
            send(_status("Connected to the server. Reset to start an episode.", "ok", connected=True))
            _relay(ws, send, episode, slot, fields)
    except LiveError as exc:
        send(_status(str(exc), "warn"))
    finally:
        _safe(slot.release)
    _safe(lambda: ws.close(reason=NORMAL_CLOSE))


def _relay(ws, send, episode: Episode, slot, fields) -> None:
    rewards: list = []
    while True:
        raw = ws.receive(timeout=slots.IDLE_S)
        if raw is None:
            send(_status(f"This session ended after {slots.IDLE_S // 60} minutes without a step. Reload the page "
                         "to start again.", "info"))
            return
        _safe(slot.touch)
        try:
            message = json.loads(raw)
            if not isinstance(message, dict):
                raise ValueError
        except ValueError:
            send(_status("The playground sent something that is not a form; reload the page.", "warn"))
            continue
        try:
            send(_answer(message, episode, fields, rewards))
        except BadAction as exc:
            send(_status(str(exc), "warn"))
        except LiveError as exc:
            if episode.closed:
                send(_status(f"{exc} Reload the page to start a new session.", "warn"))
                return
            send(_status(str(exc), "warn"))


def _answer(message: dict, episode: Episode, fields, rewards: list) -> str:
    """Play one form and render what to swap in."""
    op = message.get("op")
    if op == "reset":
        data = {}
        seed = bounded_int(message.get("seed"), "The seed")
        if seed is not None:
            data["seed"] = seed
        split = str(message.get("split") or "")[:200]
        if split:
            data["split"], data["index"] = split, bounded_int(message.get("index"), "The task index") or 0
        answer = episode.reset(data)
        rewards.clear()
        rewards.append(answer.get("reward"))
        return _step_fragment("reset" + (f" · {split} #{data['index']}" if split else ""), answer, rewards, None)
    if op == "step":
        action = action_from_form(fields, message)
        answer = episode.step(action)
        rewards.append(answer.get("reward"))
        return _step_fragment(f"step {episode.steps}", answer, rewards, action)
    if op == "state":
        return render_template("partials/play_frames.html", kind="state", state=json.dumps(
            episode.state(), indent=2, ensure_ascii=False)[:100_000], status=_status_words("State read.", "ok"))
    if op == "mcp":
        tool = str(message.get("tool") or "")[:200]
        if not tool:
            raise BadAction("Choose a tool.")
        arguments = action_from_form([{"name": "arguments", "label": "Arguments", "kind": "json",
                                       "required": False}], message).get("arguments", {})
        if not isinstance(arguments, dict):
            raise BadAction("Arguments must be a JSON object.")
        result = episode.mcp("tools/call", {"name": tool, "arguments": arguments})
        parts, is_error = tool_result_parts(result)
        return render_template("partials/play_frames.html", kind="tool", tool=tool, parts=parts, is_error=is_error,
                               status=_status_words(f"{tool} answered.", "warn" if is_error else "ok"))
    raise BadAction("Unknown playground action.")


def _step_fragment(title, answer, rewards, action) -> str:
    parts, withheld = observation_parts(answer.get("observation"))
    reward, done = answer.get("reward"), bool(answer.get("done"))
    words = f"{title}: reward {reward_text(reward)}" + (", episode done" if done else "")
    return render_template("partials/play_frames.html", kind="step", title=title, parts=parts, withheld=withheld,
                           reward=reward_text(reward), done=done, rewards=rewards, plot=reward_points(rewards),
                           action=json.dumps(action, ensure_ascii=False) if action is not None else None,
                           status=_status_words(words, "ok"))


def _status_words(text: str, tone: str, connected: bool = False) -> dict:
    return {"text": text, "tone": tone, "connected": connected}


def _status(text: str, tone: str, connected: bool = False) -> str:
    return render_template("partials/play_frames.html", kind="status", status=_status_words(text, tone, connected))


def _sender(ws):
    def send(html: str) -> None:
        ws.send(html)
    return send


def _end(ws, send, sentence: str) -> None:
    _safe(lambda: send(_status(sentence, "warn")))
    _safe(lambda: ws.close(reason=NORMAL_CLOSE))


def _safe(action) -> None:
    try:
        action()
    except Exception:  # closing and bookkeeping after the visitor left: nothing to tell anyone
        log.debug("playground cleanup step failed", exc_info=True)
