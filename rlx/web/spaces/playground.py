"""The playground /s/<org>/<name>/play: a Space's environment played from the browser.

The page holds forms (reset, a Task API task, a step from the action schema, state, an MCP tool call) that htmx's
ws extension sends as JSON over one WebSocket to /play/ws. That socket is relayed, one message at a time, to the
server's own /ws (rlx.live.episode): each answer comes back as HTML fragments swapped in by id (the step log,
the reward plot, the status line). With JS off the page says what the playground needs.

A session holds a slot (rlx.live.slots: per visitor and overall, in Redis) and ends when its visitor is quiet for
IDLE_S. The server's own session is held only while an episode is in use (rlx.live.shared_episode): given back
after a short idle time, when the episode breaks and when the tab goes away; a visitor who finds the server full
is told why, where they stand in line and for how long at most (rlx.live.seats).
"""

from __future__ import annotations

import json
import logging
import time

from flask import Blueprint, render_template, request
from flask_sock import Sock
from redis.exceptions import RedisError

from rlx.live import LiveError, SpaceRefused, cached_check, check_space, space_base_url, verified_openenv
from rlx.live import frames, seats, slots
from rlx.live.episode_answers import EpisodeAnswers
from rlx.live.shared_episode import SharedEpisode, TurnOver, Wait
from rlx.live.play_view import MAX_INT, BadAction, action_fields, action_from_form, bounded_int, observation_parts
from rlx.live.play_view import reward_points, reward_text, tool_result_parts
from rlx.queue import get_redis
from rlx.http.origin import same_origin
from rlx.http.render import render
from rlx.web.spaces.loaders import load_space, local_hosts
from rlx.auth.visitor import cap_holder
from rlx.web.runs.owner import visitor_id

log = logging.getLogger("rlx.playground")
bp = Blueprint("playground", __name__)
sock = Sock()
MAX_MESSAGE = 256 * 1024  # one form from the browser
NORMAL_CLOSE = 1000  # htmx's ws extension reconnects after other codes; an ended session must stay ended
POLL_S = 1.0  # a waiting session asks for its turn this often
OPENS = ("reset", "mcp")  # the forms that may start an episode
OPENS_WORDS = {"reset": "Reset", "mcp": "tool call"}


def init_app(app) -> None:
    app.config.setdefault("SOCK_SERVER_OPTIONS", {"max_message_size": MAX_MESSAGE, "ping_interval": 25})
    sock.init_app(app)
    app.register_blueprint(bp)


def _offer(record):
    """What the playground can offer for this Space, from its last check (made now when there is none)."""
    db = get_redis()
    report = cached_check(db, record.id)
    if report is None or report.get("checking") or not report.get("ok"):  # a failed check is asked again
        report = check_space(db, record, local_hosts())
    schema = (report or {}).get("schema") or {}
    task_api = {env: [s for s in (answer.get("splits") or []) if isinstance(s, dict) and s.get("name")]
                for env, answer in ((report or {}).get("task_api") or {}).items() if not answer.get("error")}
    return {"report": report, "verified": verified_openenv(report), "fields": action_fields(schema.get("action")),
            "tools": (report or {}).get("tools") or [], "splits": [s for env in task_api.values() for s in env]}


@bp.get("/s/<org>/<name>/play")
def play_page(org: str, name: str):
    record = load_space(org, name)
    refusal = None
    try:
        space_base_url(record, local_hosts())
    except SpaceRefused as exc:
        refusal = str(exc)
    offer = _offer(record) if refusal is None else {"report": None, "verified": False}
    visitor_id(create=True)  # the cookie that makes this visitor's sessions theirs
    chosen = _chosen_task(offer.get("splits") or [])
    # A path, not url_for's ws:// URL: htmx makes it ws: or wss: after the page's own scheme (behind TLS too).
    response = render("pages/playground.html", record=record, org=org, name=name, refusal=refusal,
                      socket_path=f"/s/{org}/{name}/play/ws", **chosen, **offer)
    response.headers["Cache-Control"] = "no-store"
    return response


def _chosen_task(splits: list[dict]) -> dict:
    """The task a link asked for (?split=&index=, from the Task API browser), when the server lists that split;
    the index is kept within the split's size."""
    sizes = task_sizes(splits)
    split = request.args.get("split", "")
    size = sizes.get(split) if split in sizes else None
    top = (size - 1) if isinstance(size, int) and size > 0 else MAX_INT
    raw = request.args.get("index", "")
    index = int(raw) if raw.isdigit() and int(raw) <= top else 0
    return {"chosen_split": split if split in sizes else "", "chosen_index": index if split in sizes else 0,
            "max_index": top if split in sizes else MAX_INT}


def task_sizes(splits: list[dict]) -> dict:
    """Each listed split's number of tasks (None when the server did not say)."""
    return {s["name"]: s.get("num_tasks") if isinstance(s.get("num_tasks"), int) else None for s in splits
            if isinstance(s, dict) and isinstance(s.get("name"), str)}


@sock.route("/s/<org>/<name>/play/ws", bp=bp)
def play_socket(ws, org: str, name: str):
    """One playground session. Every way it ends says why in the status line, then closes with 1000."""
    send = _sender(ws)
    if not same_origin():
        return _end(ws, send, "Cross-site pages may not open a playground here.")
    try:
        record = load_space(org, name)
        base_url = space_base_url(record, local_hosts())
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
    line = seats.Line(get_redis(), record.id, slot.session_id)
    shared = SharedEpisode(base_url, line)
    try:
        report = cached_check(get_redis(), record.id) or {}
        fields = action_fields((report.get("schema") or {}).get("action"))
        shared.tasks = task_sizes([s for answer in (report.get("task_api") or {}).values()
                                   if isinstance(answer, dict) for s in answer.get("splits") or []])
        send(_status("Ready. Reset to start an episode.", "ok", connected=True))
        _relay(ws, send, shared, slot, fields)
    except LiveError as exc:
        send(_status(str(exc), "warn"))
    finally:
        _safe(shared.leave)
        _safe(slot.release)
    _safe(lambda: ws.close(reason=NORMAL_CLOSE))


def _relay(ws, send, shared: SharedEpisode, slot, fields) -> None:
    """Answer the visitor's forms. The server's episode is held only while in use (shared_episode); while the
    server is full, the session waits in line, says where it stands every POLL_S, and plays the form it was
    given as soon as its turn comes."""
    rewards: list = []
    pending, quiet_since, told = None, time.monotonic(), ""
    while True:
        if shared.waiting:
            timeout = POLL_S
        elif shared.playing:
            turn_left = shared.turn_left()
            timeout = max(0.05, min(shared.idle_left(), turn_left if turn_left is not None else float("inf")))
        else:
            timeout = max(0.05, slots.IDLE_S - (time.monotonic() - quiet_since))
        raw = ws.receive(timeout=timeout)
        if raw is None:
            if shared.waiting and pending is not None:
                told = _try_again(send, shared, pending, fields, rewards, told)
                pending = None if not shared.waiting else pending
                continue
            if shared.playing and shared.turn_left() is not None and shared.end_turn_if_over():
                send(_status(shared.turn_over_words(), "info", connected=True))
                continue
            if shared.playing:
                if shared.idle_left() <= 0.05:
                    shared.give_back()
                    send(_status(f"The episode was given back to the server after {shared.idle_s:g} s without a "
                                 "move, so others can play. Reset to start a new one.", "info", connected=True))
                continue
            send(_status(f"This session ended after {slots.IDLE_S // 60} minutes without a step. Reload the page "
                         "to start again.", "info"))
            return
        quiet_since = time.monotonic()
        _safe(slot.touch)
        try:
            message = json.loads(raw)
            if not isinstance(message, dict):
                raise ValueError
        except ValueError:
            send(_status("The playground sent something that is not a form; reload the page.", "warn"))
            continue
        if shared.waiting:
            if message.get("op") not in OPENS and pending is not None:
                first = OPENS_WORDS.get(pending.get("op"), "first form")
                send(_status(f"Not sent: send it again once your {first} has started the episode. {told}".strip(),
                             "info", connected=True))
                continue  # a move made before the visitor has seen the new episode would be blind
            pending = message if message.get("op") in OPENS else pending
            told = _try_again(send, shared, pending or message, fields, rewards, "")
            pending = None if not shared.waiting else pending
            continue
        try:
            send(_answer(message, shared, fields, rewards))
        except Wait as wait:
            pending = message
            told = _tell_wait(send, wait, shared, "")
        except TurnOver as over:
            send(_status(str(over), "info", connected=True))
        except BadAction as exc:
            send(_status(str(exc), "warn"))
        except LiveError as exc:
            if shared.episode is not None and shared.episode.closed:
                send(_status(f"{exc} Reload the page to start a new session.", "warn"))
                return
            send(_status(str(exc), "warn"))
        if shared.playing and shared.done and shared.someone_waits():
            shared.give_back()  # a finished episode, with others in line: their turn now


def _try_again(send, shared: SharedEpisode, message: dict, fields, rewards: list, told: str) -> str:
    """While waiting: the form again if this session's turn may have come, else where it stands."""
    try:
        send(_answer(message, shared, fields, rewards))
        return ""
    except Wait as wait:
        return _tell_wait(send, wait, shared, told)
    except (BadAction, LiveError) as exc:
        shared.stop_waiting()
        send(_status(str(exc), "warn"))
        return ""


def _tell_wait(send, wait: Wait, shared: SharedEpisode, told: str) -> str:
    """Where the visitor stands, sent only when the sentence changed (the status line is read aloud)."""
    text = wait_sentence(wait.place, shared.idle_s, shared.turn_s)
    if text != told:
        send(_status(text, "info", connected=True))
    return text


def wait_sentence(place: dict, idle_s: float, turn_s: float | None = None) -> str:
    """Why a visitor waits, where they stand, and for how long at most if the players ahead stop now."""
    position = max(place.get("position") or 1, 1)
    capacity = place.get("capacity")
    reason = place.get("reason") or ""
    said = f" (it said: {reason.rstrip('.')})" if reason else ""
    takes = (f"This server runs {capacity} episode{'' if capacity == 1 else 's'} at a time" if capacity
             else "This server is full") + f"{said}, and it is in use."
    where = "You are next in line" if position == 1 else f"You are number {position} in line"
    if place.get("holders") and place.get("free_by"):
        left = max(0, round(place["free_by"] - time.time()))
        when = (f"; an episode is given back {idle_s:g} s after its last move, so your turn comes in {left} s "
                "or less if the player ahead stops now" if position == 1 else
                f"; each episode is given back {idle_s:g} s after its last move")
        if turn_s:
            when += f", and nobody keeps the server more than {turn_s:g} s while others wait"
    else:
        when = "; the server is asked again every few seconds"
    return f"{takes} {where}{when}. Your Reset will start as soon as it is your turn."


def _answer(message: dict, shared: SharedEpisode, fields, rewards: list) -> str:
    """Play one form and render what to swap in."""
    op = message.get("op")
    if op == "reset":
        data = {}
        seed = bounded_int(message.get("seed"), "The seed")
        if seed is not None:
            data["seed"] = seed
        split = str(message.get("split") or "")[:200]
        if split:
            data["split"], data["index"] = split, _task_index(shared.tasks, split, message.get("index"))
        answer = shared.run(lambda episode: episode.reset(data))
        shared.answers = EpisodeAnswers()  # a new episode: what the last one withheld is its own
        rewards.clear()
        rewards.append(answer.get("reward"))
        return _step_fragment("reset" + (f" · {split} #{data['index']}" if split else ""), answer, rewards, None,
                              shared)
    if op == "step":
        action = action_from_form(fields, message)
        if not shared.playing:
            raise BadAction("No episode is running: Reset to start one.")
        answer = shared.run(lambda episode: episode.step(action))
        rewards.append(answer.get("reward"))
        return _step_fragment(f"step {shared.episode.steps}", answer, rewards, action, shared)
    if op == "state":
        if not shared.playing:
            raise BadAction("No episode is running: Reset to start one.")
        state, _ = shared.answers.clean(shared.run(lambda episode: episode.state()))
        return render_template("partials/play_frames.html", kind="state", state=[
            {"label": "state", **frames.folded_part("json", frames.readable_json(state))}],
            status=_status_words("State read.", "ok"))
    if op == "mcp":
        tool = str(message.get("tool") or "")[:200]
        if not tool:
            raise BadAction("Choose a tool.")
        arguments = action_from_form([{"name": "arguments", "label": "Arguments", "kind": "json",
                                       "required": False}], message).get("arguments", {})
        if not isinstance(arguments, dict):
            raise BadAction("Arguments must be a JSON object.")
        result = shared.run(lambda episode: episode.mcp("tools/call", {"name": tool, "arguments": arguments}))
        parts, is_error = tool_result_parts(result)
        return render_template("partials/play_frames.html", kind="tool", tool=tool, parts=parts, is_error=is_error,
                               status=_status_words(f"{tool} answered.", "warn" if is_error else "ok"))
    raise BadAction("Unknown playground action.")


def _task_index(tasks: dict, split: str, raw) -> int:
    """The task index asked for, checked against what the server said of its splits (a server may ignore an index
    past the end and start another task without a word). A server whose check listed no splits is taken at its
    word: the page offers no split to choose there."""
    if not tasks:
        return bounded_int(raw, "The task index") or 0
    if split not in tasks:
        raise BadAction(f"The server lists no split {split[:80]!r}.")
    size = tasks[split]
    if size == 0:
        raise BadAction(f"The split {split[:80]} has no tasks.")
    return bounded_int(raw, "The task index", 0, size - 1 if isinstance(size, int) else MAX_INT) or 0


def _step_fragment(title, answer, rewards, action, shared: SharedEpisode) -> str:
    parts, withheld = observation_parts(answer.get("observation"), shared.answers)
    reward, done = answer.get("reward"), bool(answer.get("done"))
    shared.done = done
    words = f"{title}: reward {reward_text(reward)}" + (", episode done" if done else "")
    turn = "" if done else shared.turn_words()
    words += f". {turn}" if turn else ""
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
