"""The run form, read strictly: only the fields the chosen run option offers, each value checked.

A forged form (a field the option does not take, an agent or visibility not offered, an option that cannot run
here, an over-long value) is refused with one sentence and starts nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from rlx.adapters.contract import RunOption

MAX_TEXT = 200
MAX_SECRET = 400
ALWAYS_ALLOWED = {"option"}


class FormError(ValueError):
    """A sentence saying what is wrong with the form; `field` names the field it is about, when it is one."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


@dataclass
class RunChoice:
    option: RunOption
    values: dict[str, str]
    secret: str | None = None  # the API key, kept apart so it can never be stored with the rest


def read_run_form(form, options: list[RunOption]) -> RunChoice:
    by_key = {o.key: o for o in options}
    key = form.get("option", "")
    option = by_key.get(key)
    if option is None:
        raise FormError(f"There is no run option {key[:40]!r} for this task.")
    if not option.can_run:
        raise FormError(f"This task cannot run on {option.label}: {option.why_not}")
    fields = {f.name: f for f in option.fields}
    unknown = sorted(set(form.keys()) - set(fields) - ALWAYS_ALLOWED)
    if unknown:
        raise FormError(f"The form has a field this run does not take: {unknown[0][:40]!r}.")
    values: dict[str, str] = {}
    secret = None
    for name, spec in fields.items():
        raw = form.getlist(name) if hasattr(form, "getlist") else [form.get(name, "")]
        if len(raw) > 1:
            raise FormError(f"The field {spec.label!r} was sent more than once.", name)
        value = (raw[0] if raw else "").strip()
        if spec.type == "password":
            if len(value) > MAX_SECRET:
                raise FormError(f"{spec.label} is longer than {MAX_SECRET} characters.", name)
            secret = value or None
            continue
        if len(value) > MAX_TEXT:
            raise FormError(f"{spec.label} is longer than {MAX_TEXT} characters.", name)
        if spec.type == "choice":
            value = value or (spec.default or "")
            why = dict(map(tuple, spec.unavailable)).get(value)
            if why:
                raise FormError(f"{value} cannot run here: {why}")
            if value not in spec.choices:
                raise FormError(f"{spec.label} must be one of {', '.join(spec.choices)}, not {value[:40]!r}.", name)
        values[name] = value
    return RunChoice(option, values, secret)
