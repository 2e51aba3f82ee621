"""What the playground draws and reads, as plain data (no Flask): the action form from a server's action schema,
a visitor's form values turned back into an action, an observation split into drawable parts, and an episode's
rewards as the points of a small plot."""

from __future__ import annotations

import bisect
import json
import math
from collections.abc import Sequence

from rlx.adapters.withhold.keys import strip_answers
from rlx.live import frames

BASE_FIELDS = {"metadata"}  # every OpenEnv action has it; nobody types it in a form
MAX_TEXT = 20_000  # characters of one form value
MAX_INT = 2**31 - 1
_IMAGE = ("data:image/png;", "data:image/jpeg;", "data:image/gif;", "data:image/webp;")
_AUDIO = ("data:audio/wav;", "data:audio/mpeg;", "data:audio/ogg;", "data:audio/webm;", "data:audio/x-wav;")


class BadAction(ValueError):
    """The form's values do not make an action; the message says which field and why."""


def action_fields(schema: dict | None) -> list[dict]:
    """One form field per property of the action schema: name, label, help, kind (text, textarea, integer,
    number, boolean, choice, json), required, choices. No usable schema: one JSON field for the whole action."""
    props = (schema or {}).get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict) or not props:
        return [{"name": "__action__", "label": "Action (JSON)", "help": "The server published no action schema: "
                 "type the action as a JSON object.", "kind": "json", "required": True, "choices": []}]
    required = set(schema.get("required") or [])
    fields = []
    for name, prop in list(props.items())[:60]:
        if name in BASE_FIELDS or not isinstance(prop, dict):
            continue
        kind, choices = _kind(_without_null(prop))
        fields.append({"name": name, "label": str(prop.get("title") or name), "kind": kind, "choices": choices,
                       "help": str(prop.get("description") or "")[:300], "required": name in required,
                       "default": prop.get("default")})
    return fields


def _without_null(prop: dict) -> dict:
    options = prop.get("anyOf") or prop.get("oneOf")
    if isinstance(options, list):
        real = [o for o in options if isinstance(o, dict) and o.get("type") != "null"]
        if len(real) == 1:
            return {**prop, **real[0]}
    return prop


def _kind(prop: dict) -> tuple[str, list]:
    if isinstance(prop.get("enum"), list) and prop["enum"]:
        return "choice", [v for v in prop["enum"][:100] if isinstance(v, (str, int, float))]
    kind = prop.get("type")
    if kind == "string":
        return ("textarea" if (prop.get("maxLength") or 10_000) > 200 else "text"), []
    if kind in ("integer", "number", "boolean"):
        return kind, []
    return "json", []


def action_from_form(fields: list[dict], values: dict) -> dict:
    """The action the form describes; BadAction names the first field that is wrong."""
    if fields and fields[0]["name"] == "__action__":
        value = _json_value("Action", values.get("__action__"))
        if not isinstance(value, dict):
            raise BadAction("The action must be a JSON object.")
        return value
    action = {}
    for field in fields:
        raw = values.get(field["name"])
        if field["kind"] == "boolean":
            action[field["name"]] = raw in ("on", "true", True)
            continue
        if raw is None or (isinstance(raw, str) and raw.strip() == ""):
            if field["required"]:
                raise BadAction(f"{field['label']} is required.")
            continue
        action[field["name"]] = _typed(field, raw)
    return action


def _typed(field: dict, raw):
    label, kind = field["label"], field["kind"]
    text = str(raw)
    if len(text) > MAX_TEXT:
        raise BadAction(f"{label} is longer than {MAX_TEXT:,} characters.")
    if kind == "integer":
        try:
            number = int(text.strip())
        except ValueError:
            raise BadAction(f"{label} must be a whole number.") from None
        if abs(number) > MAX_INT:
            raise BadAction(f"{label} must be between {-MAX_INT:,} and {MAX_INT:,}.")
        return number
    if kind == "number":
        try:
            number = float(text.strip())
        except ValueError:
            raise BadAction(f"{label} must be a number.") from None
        if not math.isfinite(number) or abs(number) > 1e15:
            raise BadAction(f"{label} must be a finite number below 10¹⁵.")
        return number
    if kind == "json":
        return _json_value(label, text)
    if kind == "choice":
        matches = [c for c in field["choices"] if str(c) == text]
        if not matches:
            raise BadAction(f"{label} must be one of the offered choices.")
        return matches[0]
    return text


def _json_value(label: str, raw):
    text = str(raw or "")
    if len(text) > MAX_TEXT:
        raise BadAction(f"{label} is longer than {MAX_TEXT:,} characters.")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise BadAction(f"{label} is not valid JSON ({exc.msg} at character {exc.pos}).") from None


def bounded_int(raw, label: str, low: int = 0, high: int = MAX_INT) -> int | None:
    """A number a visitor typed, checked; None when left empty."""
    if raw is None or str(raw).strip() == "":
        return None
    try:
        number = int(str(raw).strip())
    except ValueError:
        raise BadAction(f"{label} must be a whole number.") from None
    if not low <= number <= high:
        raise BadAction(f"{label} must be between {low:,} and {high:,}.")
    return number


def observation_parts(observation, answers=None) -> tuple[list[dict], int]:
    """The observation's fields as parts to draw ({label, kind, value, note?}: text, json, image, audio, chat,
    grid, value; text and json folded when long, rlx.live.frames), answer-like fields taken out; and how many
    were taken out. A flat list with its shape beside it (`screen` and `screen_shape`) is one frame. With
    `answers` (the episode's rlx.live.episode_answers), values withheld earlier in the episode are masked too."""
    fields = observation if isinstance(observation, dict) else {"observation": observation}
    arrays = {k: v for k, v in fields.items() if frames.numbers_only(v)}  # kept as they are: nothing to withhold
    rest = {k: (0 if k in arrays else v) for k, v in fields.items()}
    clean, withheld = answers.clean(rest) if answers is not None else strip_answers(rest)
    clean.update({k: v for k, v in arrays.items() if k in clean})
    parts = []
    for key, value in clean.items():
        if key == "metadata" and not value:
            continue
        shape = clean.get(f"{key}_shape") if isinstance(value, list) else None
        framed = frames.image_part(value, shape) if shape is not None else None
        parts.append({"label": key, **(framed or value_part(value))})
    return parts, len(withheld)


def value_part(value) -> dict:
    """One value as a part to draw."""
    if isinstance(value, str):
        if value.startswith(_IMAGE) and ";base64," in value[:40]:
            return {"kind": "image", "value": value}
        if value.startswith(_AUDIO) and ";base64," in value[:40]:
            return {"kind": "audio", "value": value}
        return frames.encoded_image_part(value) or frames.folded_part("text", value)
    if _is_chat(value):
        return {"kind": "chat", "value": [{"role": str(m.get("role")), "content": _chat_text(m.get("content"))}
                                          for m in value]}
    if isinstance(value, list):
        drawn = frames.image_part(value) or frames.grid_part(value)
        if drawn:
            return drawn
    if isinstance(value, (dict, list)):
        return frames.folded_part("json", frames.readable_json(value))
    return {"kind": "value", "value": "null" if value is None else json.dumps(value)}


def _is_chat(value) -> bool:
    return (isinstance(value, list) and bool(value) and
            all(isinstance(m, dict) and isinstance(m.get("role"), str) and "content" in m for m in value))


def _chat_text(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI-style parts
        return "\n".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content)
    return json.dumps(content, ensure_ascii=False)


# What a reward may be to be plotted: a finite number (a bool is 0 or 1, as in Python); a string or an object is not.
_PLOTTED = frozenset({int, float, bool})
MAX_DOTS = 60  # in the 320-px plot more dots than this touch one another: past it the line alone is drawn
TITLE_REWARDS = 20  # rewards the plot's title lists (read out by screen readers): the latest, past that many


def reward_text(reward) -> str:
    """A reward as people read it: six significant figures (0.1 + 0.2 is 0.3, not 0.30000000000000004)."""
    if reward is None:
        return "none"
    if isinstance(reward, float) and math.isfinite(reward):
        return f"{reward:.6g}"
    return str(reward)


def reward_points(rewards: list[float | None], width: int = 320, height: int = 80) -> dict:
    """The polyline of an episode's rewards (steps without a reward skipped), scaled into width × height.

    Its size is bounded whatever the episode's length, since the plot is sent again with every step: at most two
    vertices per pixel column (the column's highest and lowest reward, so a lone spike still shows), a dot per
    reward only while there are few, and the title lists the latest rewards only. It is drawn again from every
    reward at each step, so the work per reward is done by min, max and list.index, in C; Python's own loops run
    per pixel column (2 ms at 2,500 steps, where a loop over the rewards took 14 ms)."""
    title = _title(rewards)
    steps_known, known = _plotted(rewards)
    if not known:
        return {"points": "", "low": None, "high": None, "dots": [], "title": title, "x_ticks": [], "y_ticks": []}
    low, high = min(known), max(known)
    span, steps = (high - low) or 1.0, max(len(rewards) - 1, 1)
    pad = 6
    x_scale, y_scale = (width - 2 * pad) / steps, (height - 2 * pad) / span

    def vertex(k: int) -> tuple[float, float]:  # the k-th plotted reward
        return pad + x_scale * steps_known[k], height - pad - y_scale * (known[k] - low)

    line = _column_extremes(steps_known, known, pad, x_scale, width) if len(known) > width else range(len(known))
    vertices = [v for k in line for v in vertex(k)]
    # One %-format for every coordinate: a tenth of a pixel each, as round(v, 1) gives.
    points = ("%.1f,%.1f " * len(line) % tuple(vertices))[:-1]
    last = len(rewards)  # steps are numbered from 1, as the log heads them
    ticks = sorted({1, (last + 1) // 2, last}) if last > 2 else list(range(1, last + 1))
    x_ticks = [(round(pad + x_scale * (n - 1), 1), n) for n in ticks]
    y_ticks = [(float(height - pad), reward_text(low))] + ([(float(pad), reward_text(high))] if high != low else [])
    dots = [tuple(round(v, 1) for v in vertex(k)) for k in range(len(known))] if len(known) <= MAX_DOTS else []
    return {"points": points, "low": reward_text(low), "high": reward_text(high), "dots": dots, "title": title,
            "x_ticks": x_ticks, "y_ticks": y_ticks}


def _plotted(rewards: list) -> tuple[Sequence[int], list]:
    """The steps with a finite number for reward (a bool is 0 or 1, as in Python), and those rewards. Most episodes
    have nothing else, which one sum in C tells (a None, a string or an object stops it; a nan or inf shows)."""
    try:
        if math.isfinite(sum(rewards)):
            return range(len(rewards)), rewards
    except TypeError:
        pass
    steps = [i for i, r in enumerate(rewards) if r.__class__ in _PLOTTED and math.isfinite(r)]
    return steps, [rewards[i] for i in steps]


def _column_extremes(steps_known: Sequence[int], known: list, pad: float, x_scale: float, width: int) -> list[int]:
    """Which plotted rewards to draw as vertices: in each pixel column the first highest and the first lowest, in
    step order. The column of step i is that of its x rounded to a tenth of a pixel, so the first plotted reward of
    column c is found by bisection on the steps."""
    kept: list[int] = []
    start = 0
    # Each column's first plotted reward; past the last column, the end of the rewards.
    for end in [*(bisect.bisect_left(steps_known, (c - 0.05 - pad) / x_scale) for c in range(1, width + 1)),
                len(known)]:
        if end > start:
            rewards = known[start:end]
            top, bottom = start + rewards.index(max(rewards)), start + rewards.index(min(rewards))
            kept.extend((top,) if top == bottom else sorted((top, bottom)))
            start = end
    return kept


def _title(rewards: list) -> str:
    if len(rewards) <= TITLE_REWARDS:
        return "Rewards: " + ", ".join(map(reward_text, rewards))
    latest = ", ".join(map(reward_text, rewards[-TITLE_REWARDS:]))
    return f"Rewards of {len(rewards)} steps, the last {TITLE_REWARDS}: {latest}"


def tool_result_parts(result: dict) -> tuple[list[dict], bool]:
    """An MCP tools/call result (OpenEnv's snake_case or MCP's camelCase) as parts, and whether it is an error."""
    clean, _ = strip_answers(result)
    parts = []
    for block in clean.get("content") or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            parts.append({"label": "text", "kind": "text", "value": str(block.get("text", ""))})
        elif block.get("type") in ("image", "audio") and isinstance(block.get("data"), str):
            mime = str(block.get("mimeType") or block.get("mime_type") or "")
            prefix = f"data:{mime};base64,"
            part = value_part(prefix + block["data"])
            parts.append({"label": block["type"], **part})
    structured = clean.get("structuredContent", clean.get("structured_content"))
    if structured is not None:
        parts.append({"label": "structured", **value_part(structured)})
    return parts, bool(clean.get("isError", clean.get("is_error")))
