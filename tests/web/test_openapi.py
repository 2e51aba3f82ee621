"""The published description of the JSON API (/api/openapi.json) matches the app's routes, and a generated fuzz
pass over every operation it describes finds no 5xx and no raw markup echoed back."""

import re
from collections import Counter
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

API_METHODS = {"GET", "POST", "PUT", "PATCH", "DELETE"}
FUZZ_EXAMPLES = 150  # per operation: about 900 requests, well under a minute
tried: Counter = Counter()


def spec_of(client) -> dict:
    response = client.get("/api/openapi.json")
    assert response.status_code == 200 and response.is_json
    return response.get_json()


def test_the_description_lists_exactly_the_apps_json_routes(app):
    spec = spec_of(app.test_client())
    described = {(path, method.upper()) for path, ops in spec["paths"].items() for method in ops}
    routed = {(re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule), method) for rule in app.url_map.iter_rules()
              if rule.rule.startswith("/api/") for method in rule.methods & API_METHODS}
    assert described == routed


def test_every_path_parameter_is_described(app):
    spec = spec_of(app.test_client())
    components = spec["components"]["parameters"]
    for path, ops in spec["paths"].items():
        for op in ops.values():
            names = {(components[p["$ref"].rsplit("/", 1)[1]] if "$ref" in p else p)["name"]
                     for p in op.get("parameters", []) if (components.get(p.get("$ref", "/").rsplit("/", 1)[1])
                                                            or p).get("in") == "path"}
            assert names == set(re.findall(r"{(\w+)}", path)), path


# --- the fuzz pass -------------------------------------------------------------------------------------------

HOSTILE_TEXT = ["<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "' OR 1=1 --", "%00", "\x00",
                "../../etc/passwd", "..%2f..%2fetc%2fpasswd", "a" * 5000, "日本語", "\u202e", "{{7*7}}", "NEAR(a b)",
                "tag:", "tag:<b>", ":", "*", "%", "\\", "/", "//evil.example", "null", "-1", "1e309", "NaN"]
HOSTILE_NUMBERS = ["0", "-1", "1", "100", "101", "10000", "10001", "384307168202282327", "9" * 5000, "1.5", "0x10",
                   " 1", "١", "", "+1", "1_000"]
KNOWN = {"org": ["rlx-examples", "nobody"], "name": ["terminal-basics", "trivia-table", "nothing-here", "echo-env"],
         "ref": ["csv-sales-rollup", "train/0", "train/99999999999", "a/b/c"],
         "key": ["rlx-examples/terminal-basics"], "space": ["rlx-examples/echo-env"],
         "env": ["rlx-examples/terminal-basics"], "q": ["csv", "log"]}


def value_strategy(param: dict):
    schema = param.get("schema", {})
    known = st.sampled_from(KNOWN.get(param["name"], ["x"]))
    hostile = st.sampled_from(HOSTILE_TEXT)
    if schema.get("type") == "integer":
        valid = st.integers(schema.get("minimum", -10), schema.get("maximum", 10 ** 6)).map(str)
        return st.one_of(valid, st.sampled_from(HOSTILE_NUMBERS), hostile)
    if "enum" in schema:
        return st.one_of(st.sampled_from(schema["enum"]), hostile, st.text(max_size=20))
    return st.one_of(known, hostile, st.text(max_size=60))


def operations(spec):
    components = spec["components"]["parameters"]
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            params = [components[p["$ref"].rsplit("/", 1)[1]] if "$ref" in p else p for p in op.get("parameters", [])]
            yield path, method.upper(), params


def request_strategy(path, params):
    path_params = {p["name"]: value_strategy(p) for p in params if p["in"] == "path"}
    query = {p["name"]: st.one_of(st.none(), value_strategy(p)) for p in params if p["in"] == "query"}
    return st.fixed_dictionaries({"path": st.fixed_dictionaries(path_params), "query": st.fixed_dictionaries(query)})


@pytest.fixture(scope="module")
def fuzz_app(tmp_path_factory, redis_url):
    from rlx import create_app
    from rlx.config import Config
    from tests.conftest import EXAMPLES, index_now

    app = create_app(Config.from_env({"STORAGE_DIR": str(tmp_path_factory.mktemp("fuzz")), "REDIS_URL": redis_url,
                                      "SESSION_SECRET": "x", "RLX_SOURCE": str(EXAMPLES)}))
    for repo in ("rlx-examples/terminal-basics", "rlx-examples/trivia-table"):
        index_now(app, repo)
    return app


def _operation_ids():
    import yaml

    from rlx.web.api_docs import SPEC_PATH

    return [f"{m.upper()} {p}" for p, ops in yaml.safe_load(SPEC_PATH.read_text())["paths"].items() for m in ops]


@pytest.mark.parametrize("operation", _operation_ids())
def test_fuzzing_every_operation_finds_no_5xx_and_no_markup(fuzz_app, operation):
    client = fuzz_app.test_client()
    method, path = operation.split(" ", 1)
    params = next(p for pth, m, p in operations(spec_of(client)) if pth == path and m == method)

    @settings(max_examples=FUZZ_EXAMPLES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(request_strategy(path, params))
    def check(case):
        url = path
        for name, value in case["path"].items():
            url = url.replace("{" + name + "}", quote(value, safe="/" if name == "ref" else ""))
        query = {k: v for k, v in case["query"].items() if v is not None}
        response = client.open(url, method=method, query_string=query)
        tried[path] += 1
        body = response.get_data(as_text=True)
        assert response.status_code < 500 or (response.status_code == 503 and "Retry-After" in response.headers), \
            (url, query, response.status_code, body[:300])
        if 300 <= response.status_code < 400:  # "//" in a path: werkzeug's redirect to the merged path
            assert response.headers["Location"].startswith(("/", "http://localhost/")), response.headers["Location"]
            return
        assert response.is_json, (url, query, response.status_code)
        assert "<" not in body and ">" not in body, (url, query)  # markup never leaves as written
        if response.status_code >= 400:
            assert response.get_json()["error"].strip()

    check()
    print(f"\nfuzz {operation}: {tried[path]} requests, 0 5xx")
