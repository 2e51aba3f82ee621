"""An environment's task list: words and facet filters over its index rows, facet counts, and pages.

Words mean what they mean in every search (rlx/catalog/words.py: each begins a word of the ref, title, brief
or tags); there is no syntax, so nothing a visitor types can change what a search means. Each facet is counted
over the rows the other filters leave.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from dataclasses import dataclass

from werkzeug.datastructures import MultiDict

from rlx.adapters.key_labels import readable
from rlx.catalog import words

PAGE_SIZE = 50
PREFERRED = ("config", "split", "domain", "category", "difficulty", "tags", "grading", "framework", "runtime",
             "network", "runs_here", "steps")
LABELS = {"runs_here": "Runs here", "grading": "Reward file", "framework": "Test framework", "runtime": "Runs in"}
MAX_FACETS = 10
MAX_VALUES = 40
SEARCH_CACHE_SIZE = 256
_search_cache: OrderedDict = OrderedDict()
_cache_lock = threading.Lock()


@dataclass
class TaskQuery:
    q: str
    selected: dict[str, set[str]]
    page: int

    @classmethod
    def from_args(cls, args: MultiDict) -> "TaskQuery":
        selected: dict[str, set[str]] = {}
        for raw in args.getlist("f")[:24]:
            key, sep, value = raw.partition(":")
            if sep and key and value:
                selected.setdefault(key[:40], set()).add(value[:200])
        try:
            page = max(1, min(int(args.get("page", 1)), 10_000))
        except ValueError:
            page = 1
        return cls(q=args.get("q", "").strip()[:200], selected=selected, page=page)

    def args(self, **change) -> dict:
        """Query arguments for a link: this query with `change` applied."""
        q = change.get("q", self.q)
        selected = change.get("selected", self.selected)
        page = change.get("page", 1)
        out = {"q": q} if q else {}
        f = [f"{k}:{v}" for k, values in sorted(selected.items()) for v in sorted(values)]
        if f:
            out["f"] = f
        if page > 1:
            out["page"] = page
        return out

    def toggled(self, key: str, value: str) -> dict:
        selected = {k: set(v) for k, v in self.selected.items()}
        values = selected.setdefault(key, set())
        values.symmetric_difference_update({value})
        if not values:
            del selected[key]
        return self.args(selected=selected)


def _values(row, key) -> list[str]:
    value = row.facets.get(key)
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _matches_words(row, found: list[str]) -> bool:
    return words.matches(found, words.blob(row.ref, row.title, row.brief, *_values(row, "tags")))


def _passes(row, selected: dict[str, set[str]], skip: str | None = None) -> bool:
    return all(key == skip or set(_values(row, key)) & values for key, values in selected.items())


def search_index(index, query: TaskQuery):
    """`search` over an index's rows, remembered per index version and query: the same view (the default page
    above all) is counted once, not on every request."""
    key = (index.env_id, index.revision, index.built_at, len(index.rows), query.q,
           tuple(sorted((k, tuple(sorted(v))) for k, v in query.selected.items())))
    with _cache_lock:
        hit = _search_cache.get(key)
        if hit is not None:
            _search_cache.move_to_end(key)
            return hit
    result = search(index.rows, query)
    with _cache_lock:
        _search_cache[key] = result
        while len(_search_cache) > SEARCH_CACHE_SIZE:
            _search_cache.popitem(last=False)
    return result


def search(rows, query: TaskQuery):
    """(matching rows, facets) where facets is [(key, label, [(value, count, is_selected)])]."""
    found = words.search_words(query.q, strict=False)
    worded = [r for r in rows if _matches_words(r, found)] if found else list(rows)
    matching = [r for r in worded if _passes(r, query.selected)]
    return matching, _facets(rows, worded, query)


def _facets(all_rows, worded, query: TaskQuery):
    keys = Counter(k for r in all_rows for k, v in r.facets.items() if v not in (None, "", []))
    candidates = [k for k in PREFERRED if k in keys] + sorted(k for k in keys if k not in PREFERRED)
    facets = []
    for key in candidates:
        counts = Counter(v for r in worded if _passes(r, query.selected, skip=key) for v in _values(r, key))
        distinct = {v for r in all_rows for v in _values(r, key)}
        if not (2 <= len(distinct) <= 200 and counts) and key not in query.selected:
            continue  # a facet none of the shown tasks has (another domain's, say) is left out
        chosen = query.selected.get(key, set())
        values = [(v, n, v in chosen) for v, n in counts.most_common(MAX_VALUES)]
        values += [(v, 0, True) for v in sorted(chosen) if v not in counts]
        facets.append((key, LABELS.get(key) or readable(key), values))
        if len(facets) >= MAX_FACETS:
            break
    return facets


def page_of(rows, page: int):
    pages = max(1, -(-len(rows) // PAGE_SIZE))
    page = min(page, pages)
    return rows[(page - 1) * PAGE_SIZE: page * PAGE_SIZE], page, pages
