"""A live check (rlx.live.introspect's report) as contract sections, drawn by the same block macros as every
page: what the server offers, its tools, its Task API, its own routes, and for OpenEnv × Harbor servers their
engine, sandboxes, agents and the Hub datasets they serve."""

from __future__ import annotations

from flask import url_for

from rlx.adapters import blocks
from rlx.adapters.contract import Section

MODE_WORDS = {"simulation": "simulation (HTTP reset and step, and /ws)",
              "production": "production (episodes over /ws and MCP only)"}


LISTED_TASKS = 30  # a Space's page links this many of its advertised tasks; its /tasks pages list them all


def live_sections(report: dict | None, age_words: str | None, verified: bool,
                  space_id: str | None = None) -> list[Section]:
    if not report:
        return []
    if not report.get("ok"):
        return [Section("server", "What the server offers", [
            blocks.note(report.get("error") or "The server did not answer.", "warn")])]
    metadata = report.get("metadata") or {}
    facts = [
        ("Speaks OpenEnv", ("yes, checked " + (age_words or "just now")) if verified else
         ("no" if not report.get("openenv") else "it did, but that check is over an hour old")),
        ("Mode", MODE_WORDS.get(report.get("mode"), report.get("mode"))),
        ("Name", metadata.get("name")),
        ("Version", metadata.get("version")),
        ("Description", metadata.get("description")),
        ("Health", (report.get("health") or {}).get("status") if isinstance(report.get("health"), dict) else None),
        ("Web page", report.get("ui_path")),
        ("Task API environments", report.get("environments") or None),
    ]
    server = [blocks.kv(facts)]
    problems = report.get("problems") or {}
    if problems:
        server.append(blocks.disclose(f"{len(problems)} route{'' if len(problems) == 1 else 's'} did not answer "
                                      "(older servers lack some)",
                                      [blocks.note(text, "info") for text in problems.values()]))
    sections = [Section("server", "What the server offers", server)]
    if report.get("tools"):
        sections.append(Section("tools", f"MCP tools ({len(report['tools'])})", [
            blocks.kv([(t["name"], t.get("description") or "(no description)", t["name"]) for t in report["tools"]])]))
    task_api = report.get("task_api") or {}
    if task_api:
        rows = []
        for env, answer in task_api.items():
            if answer.get("error"):
                rows.append((env, answer["error"], env))
            else:
                rows.append((env, [_split_words(s) for s in answer.get("splits") or []] or "no splits", env))
        sections.append(Section("task-api", "Task API", [blocks.kv(rows)]))
        if space_id:
            sections.extend(_task_list(report, space_id))
    custom = report.get("custom_routes") or []
    if custom:
        sections.append(Section("routes", f"Its own routes ({len(custom)})", [
            blocks.kv([(f"{' '.join(r['methods'])} {r['path']}", r.get("summary") or "") for r in custom])]))
    schema = report.get("schema") or {}
    if isinstance(schema.get("action"), dict):
        sections.append(Section("schemas", "Schemas", [
            blocks.disclose(f"{label} schema", [blocks.value(schema[key])])
            for key, label in (("action", "Action"), ("observation", "Observation"), ("state", "State"))
            if isinstance(schema.get(key), dict)]))
    if report.get("harbor"):
        sections.append(harbor_section(report["harbor"]))
    return sections


def _task_list(report: dict, space_id: str) -> list[Section]:
    """Links to the first advertised tasks' own pages (split, index), and to the browser of all of them."""
    from rlx.adapters.registry import space_adapter

    org, name = space_id.split("/", 1)
    items = [{"label": f"{task.split} · task {task.index}",
              "href": url_for("space_tasks.task_page", org=org, name=name, ref=ref)}
             for ref, task in space_adapter().live_task_refs(report, LISTED_TASKS)]
    if not items:
        return []
    items.append({"label": "All its tasks, split by split", "href": url_for("space_tasks.task_browser", org=org,
                                                                          name=name)})
    return [Section("tasks", "Its tasks", [blocks.links(items)])]


def _split_words(split: dict) -> str:
    extra = split.get("type") or (f"{split['num_tasks']:,} tasks" if isinstance(split.get("num_tasks"), int) else "")
    return f"{split['name']} ({extra})" if extra else split["name"]


def harbor_section(harbor: dict) -> Section:
    out = [blocks.kv([("Engine", harbor.get("engine")), ("Model", harbor.get("model"))])]
    if harbor.get("error"):
        out.append(blocks.note(harbor["error"], "warn"))
    if harbor.get("sandboxes"):
        out.append(blocks.kv([(s["name"], "usable" if s["available"] else f"not usable: {s['detail'] or 'no reason'}")
                              for s in harbor["sandboxes"]], title="Sandboxes"))
    if harbor.get("agents"):
        out.append(blocks.kv([(a["name"], ", ".join(x for x in (a.get("status"), a.get("kind")) if x))
                              for a in harbor["agents"]], title="Agents"))
    datasets = harbor.get("datasets") or []
    linked = [{"label": d["spec"], "href": _dataset_url(d["hub_id"]),
               "hint": d.get("error") or (f"{d['num_tasks']:,} tasks" if d.get("num_tasks") is not None else "")}
              for d in datasets if d.get("hub_id")]
    if linked:
        out.append(blocks.links(linked, title="Hub datasets it serves"))
    others = [(d["spec"], d.get("error") or (f"{d['num_tasks']:,} tasks" if d.get("num_tasks") is not None
                                             else "served"))
              for d in datasets if not d.get("hub_id")]
    if others:
        out.append(blocks.kv(others, title="Other datasets it serves"))
    return Section("harbor", "OpenEnv × Harbor", out)


def _dataset_url(hub_id: str) -> str:
    org, name = hub_id.split("/", 1)
    return url_for("envs.env_page", org=org, name=name)
