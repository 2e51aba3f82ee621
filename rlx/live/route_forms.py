"""Forms for a server's own routes (NeMo Gym, ORS, any FastAPI app): one per published plain GET or POST route,
built from its OpenAPI parameters and request schema; a filled form turned into a call on the Space's own host.

OpenEnv's protocol routes, the Task API and its web UI are never offered (the playground and the Task API browser
serve those). Path parameters must be one plain segment each. Answer-like fields are dropped from what comes back.
"""

from __future__ import annotations

import json
import re
from urllib.parse import quote, urlencode

from rlx.adapters.withhold.keys import strip_answers
from rlx.live.client import SpaceClient
from rlx.live.errors import LiveError
from rlx.live.play_view import BadAction, action_fields, action_from_form

MAX_FORMS = 40
_PATH_PARAM = re.compile(r"\{([A-Za-z0-9_]+)\}")
_SEGMENT = re.compile(r"^[A-Za-z0-9._~@:+-]{1,200}\Z")
_REF = "#/components/schemas/"


def route_forms(report: dict | None) -> list[dict]:
    """[{id, method, path, summary, fields}] for every plain GET/POST route the server published."""
    forms = []
    openapi = (report or {}).get("openapi") or {}
    schemas = openapi.get("schemas") if isinstance(openapi.get("schemas"), dict) else openapi
    for route in (report or {}).get("custom_routes") or []:
        if len(forms) >= MAX_FORMS:
            break
        method = "GET" if "GET" in route["methods"] else "POST" if "POST" in route["methods"] else None
        if method is None:
            continue
        fields = []
        for param in route.get("parameters") or []:
            if param["in"] not in ("path", "query"):
                continue
            field = action_fields({"properties": {param["name"]: param["schema"]},
                                   "required": [param["name"]] if param["required"] or param["in"] == "path"
                                   else []})[0]
            fields.append({**field, "name": f"{param['in']}.{param['name']}", "where": param["in"],
                           "param": param["name"]})
        if method == "POST":
            body = _resolve(route.get("request_schema"), schemas)
            for field in action_fields(body) if body else []:
                fields.append({**field, "name": f"body.{field['name']}", "where": "body", "param": field["name"]})
        forms.append({"id": f"{method} {route['path']}", "method": method, "path": route["path"],
                      "summary": route.get("summary") or "", "fields": fields})
    return forms


def _resolve(schema, schemas: dict, depth: int = 0):
    if not isinstance(schema, dict) or depth > 5:
        return None
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith(_REF):
        return _resolve(schemas.get(ref[len(_REF):]), schemas, depth + 1)
    return schema


def call_route(client: SpaceClient, form: dict, values: dict, cookies: dict | None) -> dict:
    """Send the filled form; {status, text, json (answers dropped), withheld, cookies (the jar after)}.
    BadAction for a value the form does not accept."""
    path = form["path"]
    query, body = {}, {}
    for field in form["fields"]:
        typed = action_from_form([{**field, "name": "v"}], {"v": values.get(field["name"])}).get("v")
        if field["where"] == "path":
            text = str(typed if typed is not None else "")
            if not _SEGMENT.match(text) or text in (".", ".."):
                raise BadAction(f"{field['label']} must be one plain path segment (letters, digits and ._~@:+-, "
                                "at most 200 characters).")
            path = path.replace("{" + field["param"] + "}", quote(text, safe="@:+~"))
        elif typed is not None:
            (query if field["where"] == "query" else body)[field["param"]] = typed
    if _PATH_PARAM.search(path):
        raise BadAction("Every path parameter needs a value.")
    if query:
        path += "?" + urlencode({k: json.dumps(v) if isinstance(v, (dict, list)) else
                                 str(v).lower() if isinstance(v, bool) else v for k, v in query.items()})
    answer = client.request(form["method"], path, body if form["method"] == "POST" else None,
                            f"{form['method']} {form['path']}", cookies=cookies)
    jar = {**(cookies or {}), **(answer.cookies or {})}
    text = answer.body.decode("utf-8", errors="replace")
    try:
        data, withheld = strip_answers(json.loads(text))
        text = json.dumps(data, indent=2, ensure_ascii=False)
    except ValueError:
        withheld = []
        if "json" in answer.content_type:
            raise LiveError(f"{form['id']} answered something that is not JSON.", "not_json") from None
    return {"status": answer.status, "text": text[:200_000], "withheld": [w.where for w in withheld],
            "cookies": dict(list(jar.items())[:50])}
