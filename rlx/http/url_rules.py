"""URL rules whose builders are compiled when first used, not when the app is made.

Werkzeug turns each rule into two small Python functions (one for url_for with known arguments, one that appends
the unknown ones as a query string) through `ast` and `compile()`, as soon as the rule is added. With some seventy
rules that was 48 of the 62 ms of every create_app() and a tenth of a worker's boot, most of it for builders no request of that
process ever calls: a worker builds no URL at all, and a page uses a handful. Matching a request is unchanged (its
regexes are still made up front); only building waits for the first url_for of the rule.
"""

from __future__ import annotations

from werkzeug.routing import Rule


class LazyBuildRule(Rule):
    def _compile_builder(self, append_unknown: bool = True):
        compile_now = super()._compile_builder
        attribute = "_build_unknown" if append_unknown else "_build"

        def build_first(rule: Rule, **values):
            # Replaced by the compiled builder on the first call; two threads racing here compile the same one.
            builder = compile_now(append_unknown).__get__(rule, None)
            setattr(rule, attribute, builder)
            return builder(**values)

        return build_first
