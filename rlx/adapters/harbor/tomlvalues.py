"""Typed values out of a parsed task.toml, each wrong one refused with a sentence that says where.

`where` is the dotted section ("environment", "verifier.collect[0]", "" for the top level); messages name it
the way a task author sees it in the file: "task.toml [environment] cpus must be a number, not ...".
Legacy forms Harbor still accepts (memory = "2G", allow_internet = true) are read here too, each migration
told in one sentence appended to `legacy`.
"""

from __future__ import annotations

import ast
import re
from typing import Any


class TaskTomlError(ValueError):
    """task.toml could not be read; the message is one sentence for the page."""


_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([GMK])(?:iB|i|B)?\s*$", re.IGNORECASE)
_MB_PER_UNIT = {"G": 1024, "M": 1, "K": 1 / 1024}


def parse_size_mb(text: Any) -> int | None:
    """Megabytes in a legacy size string ("2G", "512M", "1024K"), or None if it is not one."""
    match = _SIZE.match(text) if isinstance(text, str) else None
    if match is None:
        return None
    return max(1, round(float(match.group(1)) * _MB_PER_UNIT[match.group(2).upper()]))


NETWORK_MODES = ("public", "no-network", "allowlist")


def read_size_mb(table: dict, legacy_key: str, where: str, legacy: list[str]) -> int | None:
    """memory_mb / storage_mb, or the legacy size string ("2G", "512M", "1024K") converted to megabytes."""
    key = f"{legacy_key}_mb"
    declared = read_integer(table, key, where)
    if legacy_key not in table:
        return declared
    raw = table[legacy_key]
    prefix = "" if where == "environment" else f"[{where}] "
    shown = f'"{raw}"' if isinstance(raw, str) else str(raw)
    if declared is not None:
        legacy.append(f"{prefix}{legacy_key} = {shown} ignored: {key} is set")
        return declared
    megabytes = parse_size_mb(raw)
    if megabytes is None:
        raise TaskTomlError(
            f'task.toml [{where}] {legacy_key} = {shown} is not a size such as "2G", "512M" or "1024K".'
        )
    legacy.append(f"{prefix}{legacy_key} = {shown} read as {key} = {megabytes}")
    return megabytes


def read_network_mode(table: dict, where: str, legacy: list[str]) -> str:
    declared = read_choice(table, "network_mode", where, NETWORK_MODES)
    if "allow_internet" not in table:
        return declared or "public"
    allow = table["allow_internet"]
    if not isinstance(allow, bool):
        raise TaskTomlError(f"task.toml [{where}] allow_internet must be true or false, not {describe(allow)}.")
    prefix = "" if where == "environment" else f"[{where}] "
    shown = "true" if allow else "false"
    if declared is not None:
        legacy.append(f"{prefix}allow_internet = {shown} ignored: network_mode is set")
        return declared
    mode = "public" if allow else "no-network"
    legacy.append(f'{prefix}allow_internet = {shown} read as network_mode = "{mode}"')
    return mode


# tomllib's terse wording, said the way a task author would understand it.
_PLAIN_WORDS = {
    "invalid value": "a value is missing or is not valid TOML",
    "cannot overwrite a value": "a key is set twice",
    "unterminated string": "a string is never closed",
}


def syntax_sentence(message: str, text: str) -> str:
    """One sentence for a tomllib syntax error, with the line (and column) it happened at."""
    match = re.search(r"\s*\(at line (\d+), column (\d+)\)$", message)
    if match:
        detail = message[: match.start()]
        where = f"line {match.group(1)}, column {match.group(2)}"
    else:
        detail = message.removesuffix(" (at end of document)")
        where = f"line {len(text.rstrip().splitlines()) or 1} (the end of the file)"
    detail = detail[:1].lower() + detail[1:]
    detail = _PLAIN_WORDS.get(detail, detail)
    twice = re.fullmatch(r"cannot declare (\(.*\)) twice", detail)
    if twice:
        try:
            detail = f"the table [{'.'.join(ast.literal_eval(twice.group(1)))}] is declared twice"
        except (ValueError, SyntaxError, TypeError):
            pass
    return f"task.toml {where}: {detail}."


def section_label(where: str) -> str:
    return f"[{where}]" if where else "top level"


def describe(value: Any) -> str:
    if isinstance(value, bool):
        return f"the boolean {'true' if value else 'false'}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f'the string "{shown}"'
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return f"a {type(value).__name__}"


def wrong_type(where: str, key: str, expected: str, value: Any) -> TaskTomlError:
    return TaskTomlError(f"task.toml {section_label(where)} {key} must be {expected}, not {describe(value)}.")


def keep_unknown(table: dict, known: set[str], where: str, extra: dict) -> None:
    for key, value in table.items():
        if key not in known:
            extra[f"{where}.{key}" if where else key] = value


def read_table(value: Any, where: str) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise TaskTomlError(f"task.toml {where} must be a table, not {describe(value)}.")
    return value


def read_list(table: dict, key: str, where: str) -> list:
    value = table.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise wrong_type(where, key, "a list", value)
    return value


def read_text(table: dict, key: str, where: str) -> str | None:
    value = table.get(key)
    if value is not None and not isinstance(value, str):
        raise wrong_type(where, key, "a string", value)
    return value


def read_text_list(table: dict, key: str, where: str) -> list[str] | None:
    if key not in table:
        return None
    values = read_list(table, key, where)
    if not all(isinstance(item, str) for item in values):
        raise wrong_type(where, key, "a list of strings", values)
    return list(values)


def read_number(table: dict, key: str, where: str, default: float | None = None) -> float | None:
    value = table.get(key)
    if value is None:
        return default
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            raise wrong_type(where, key, "a number", value) from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise wrong_type(where, key, "a number", value)
    return float(value)


def read_integer(table: dict, key: str, where: str, default: int | None = None) -> int | None:
    value = table.get(key)
    if value is None:
        return default
    if isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d+\s*", value):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise wrong_type(where, key, "a whole number", value)
    return value


def read_user(table: dict, where: str) -> str | int | None:
    value = table.get("user")
    if value is not None and (isinstance(value, bool) or not isinstance(value, (str, int))):
        raise wrong_type(where, "user", "a user name or id", value)
    return value


def read_choice(table: dict, key: str, where: str, choices: tuple[str, ...]) -> str | None:
    value = table.get(key)
    if value is None:
        return None
    if value not in choices:
        allowed = ", ".join(f'"{choice}"' for choice in choices)
        raise wrong_type(where, key, f"one of {allowed}", value)
    return value


def read_env_table(table: dict, where: str, key: str = "env") -> dict[str, str]:
    """A table of environment variables; values are kept as written (they may hold ${VAR})."""
    values = read_table(table.get(key), f"{where}.{key}" if where else key)
    for name, value in values.items():
        if not isinstance(value, str):
            raise wrong_type(f"{where}.{key}" if where else key, name, "a string", value)
    return dict(values)
