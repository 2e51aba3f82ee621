"""The app's URL rules compile their builders at the first url_for: every URL comes out as werkzeug's own rules
build it, with path arguments quoted, defaults folded in and unknown arguments as a query string."""

from werkzeug.routing import AnyConverter, IntegerConverter, Map, PathConverter, Rule

from rlx.http.url_rules import LazyBuildRule


def _sample(converter):
    """A value each kind of path argument takes, with characters that must be quoted where it allows them."""
    if isinstance(converter, IntegerConverter):
        return 7
    if isinstance(converter, AnyConverter):
        return sorted(converter.items)[0]
    return "a b/c%d" if isinstance(converter, PathConverter) else "x y?z#"


def _arguments(rule) -> dict:
    return {name: _sample(converter) for name, converter in rule._converters.items()}


def test_every_route_builds_the_url_werkzeugs_own_rule_builds(app):
    assert app.url_rule_class is LazyBuildRule
    plain = Map([Rule(r.rule, endpoint=r.endpoint, defaults=r.defaults, methods=r.methods, websocket=r.websocket)
                 for r in app.url_map.iter_rules()]).bind("example.org")
    ours = app.url_map.bind("example.org")
    checked = 0
    for rule in app.url_map.iter_rules():
        values = _arguments(rule)
        for extra in ({}, {"next": "/d/a b?c=1", "page": 2}):
            assert ours.build(rule.endpoint, {**values, **extra}) == plain.build(rule.endpoint, {**values, **extra})
            checked += 1
    assert checked > 100  # every blueprint's routes, not a handful


def test_a_built_rule_keeps_its_builder_and_a_second_build_agrees(app):
    with app.test_request_context():
        from flask import url_for

        first = url_for("envs.env_page", org="someone", name="a b", tab="tasks")
        assert first == "/d/someone/a%20b?tab=tasks"
        assert url_for("envs.env_page", org="someone", name="a b", tab="tasks") == first
