"""JSON answers never carry markup as written: <, >, & and ' leave as \\u escapes (the same text once parsed), so
a query echoed into an error or a field can never be read as HTML by a browser or a careless client."""

from __future__ import annotations

from flask.json.provider import DefaultJSONProvider

_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "'": "\\u0027"})


def markup_safe(text: str) -> str:
    """Escape JSON text (the characters only ever occur inside strings, where \\u escapes mean the same)."""
    return text.translate(_ESCAPES)


class MarkupSafeJSON(DefaultJSONProvider):
    sort_keys = False

    def dumps(self, obj, **kwargs) -> str:
        return markup_safe(super().dumps(obj, **kwargs))
