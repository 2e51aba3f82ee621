"""JSON answers never carry markup as written: <, >, & and ' leave as \\u escapes (the same text once parsed), so
a query echoed into an error or a field can never be read as HTML by a browser or a careless client.

Answers are written by orjson: a page of search cards takes it a tenth of the json module's time. It writes
non-ASCII text as UTF-8 rather than \\u escapes (the same strings once parsed, and fewer bytes).
"""

from __future__ import annotations

import orjson
from flask.json.provider import DefaultJSONProvider

_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "'": "\\u0027"})
_BYTE_ESCAPES = tuple((char.encode(), escape.encode()) for char, escape in
                      (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("'", "\\u0027")))
# Dates and dataclasses go to Flask's own default, so they are written as they always were (dates as HTTP dates).
_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_APPEND_NEWLINE


def markup_safe(text: str) -> str:
    """Escape JSON text (the characters only ever occur inside strings, where \\u escapes mean the same)."""
    return text.translate(_ESCAPES)


def markup_safe_bytes(data: bytes) -> bytes:
    """markup_safe for UTF-8 JSON (the four characters are single bytes, never part of a longer character)."""
    for char, escape in _BYTE_ESCAPES:
        if char in data:
            data = data.replace(char, escape)
    return data


class MarkupSafeJSON(DefaultJSONProvider):
    sort_keys = False

    def dumps(self, obj, **kwargs) -> str:
        return markup_safe(super().dumps(obj, **kwargs))

    def response(self, *args, **kwargs):
        if self.compact is False or (self.compact is None and self._app.debug):
            return super().response(*args, **kwargs)  # indented for reading, by dumps
        try:
            body = orjson.dumps(self._prepare_response_obj(args, kwargs), default=self.default, option=_OPTIONS)
        except orjson.JSONEncodeError:
            # What orjson refuses (keys that are not strings, integers past 64 bits) the json module writes.
            return super().response(*args, **kwargs)
        return self._app.response_class(markup_safe_bytes(body), mimetype=self.mimetype)
