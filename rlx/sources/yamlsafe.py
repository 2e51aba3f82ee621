"""YAML from a repository, read with a bound on its size once aliases are expanded.

safe_load builds an alias as a second reference to the same object, so nine anchors of nine aliases each (a few
hundred bytes: the "billion laughs") parse in a millisecond into a value that turns into gigabytes the moment it
is copied, walked or written as JSON, as an index, a page or an MCP answer does. Every value is therefore
measured (each alias counted as often as it is used, the walk stopping at the bound) before anyone sees it.
"""

from __future__ import annotations

import yaml

MAX_NODES = 200_000  # far above any real task.yaml, compose file or card; far below a bomb
# libyaml's parser where PyYAML was built with it: the same safe constructor, ten times faster (a card's front
# matter: 0.12 ms rather than 1.2 ms, so listing a folder of 216,750 environments no longer takes 25 minutes). It
# refuses nesting past its own depth limit with a YAMLError where the pure-Python parser runs out of recursion.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YamlTooLarge(yaml.YAMLError):
    """The document expands past MAX_NODES values (an alias bomb, or simply far too big)."""


def load_bounded(text: str, max_nodes: int = MAX_NODES):
    """yaml.safe_load (libyaml's where there is one), raising YamlTooLarge when the value expands past `max_nodes`
    values or nests deeper than the parser follows (a few kilobytes of brackets)."""
    try:
        value = yaml.load(text, Loader=_LOADER)
    except RecursionError:
        raise YamlTooLarge("the YAML nests too deep to read") from None
    except yaml.YAMLError as error:
        if "nesting depth" in str(error):  # libyaml's own depth limit: the same refusal as the recursion's
            raise YamlTooLarge("the YAML nests too deep to read") from None
        raise
    seen, stack = 0, [value]
    while stack:
        item = stack.pop()
        seen += 1
        if seen > max_nodes:
            raise YamlTooLarge(f"the YAML expands past {max_nodes:,} values (aliases included)")
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set)):
            stack.extend(item)
    return value
