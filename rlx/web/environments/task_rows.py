"""The task list's rows as the page draws them, made in one pass in Python.

Deciding each row's link, title, ref and tags in the template (a url_for and a filter per row, a dozen lookups)
was most of the environment page's time; here it is a few microseconds a row, and the macro only prints.
"""

from __future__ import annotations

from dataclasses import dataclass

from rlx.http.links import path_link
from rlx.http.naming import ref_beside_title

TAGGED = ("difficulty", "category", "grading", "network", "runs_here")  # the facets a row shows, in this order


@dataclass(frozen=True, slots=True)
class RowView:
    href: str
    classes: str  # of the <li>: task-row, and pending or broken
    title: str  # the title, or the whole brief when the title is only its start
    whole_brief: bool
    ref: str  # what of the ref to show beside the title ("" for nothing)
    brief: str  # the line under the title ("" for none)
    brief_classes: str
    tags: tuple[tuple[str, str], ...]  # (classes, text) of each facet tag


def row_views(rows, org: str, name: str) -> list[RowView]:
    task_url = path_link("tasks.task_page", "ref", org=org, name=name)
    return [_view(row, task_url(row.ref)) for row in rows]


def _view(row, href: str) -> RowView:
    title, brief, pending = row.title, row.brief, row.extra.get("pending")
    # a title cut from the brief's own start says it once: the whole brief, in two lines at most
    says_once = bool(title.endswith("…") and brief and brief.startswith(title[:-1]))
    if pending:
        line, line_classes = "Reading…", "task-brief muted"
    elif row.error:
        line, line_classes = row.error, "task-brief bad"
    elif brief and not says_once and brief.strip() != title.strip():  # a row whose title is its prompt says it once
        line, line_classes = brief, "task-brief"
    else:
        line, line_classes = "", ""
    classes = "task-row" + (" pending" if pending else "") + (" broken" if row.error else "")
    return RowView(href=href, classes=classes, title=brief if says_once else title, whole_brief=says_once,
                   ref=ref_beside_title(row.ref, title), brief=line, brief_classes=line_classes,
                   tags=tuple(_tag(key, row.facets[key]) for key in TAGGED if row.facets.get(key)))


def _tag(key: str, value) -> tuple[str, str]:
    if key == "runs_here":
        yes = value == "yes"
        return f"tag tag-{key} {'ok' if yes else 'no'}", "runs here" if yes else "can't run here"
    if key == "network" and value == "no-network":
        return f"tag tag-{key}", "no internet"
    return f"tag tag-{key}", str(value)
