"""The release as sections: the environment page (domain tiles, the treemap, the reward design, the general
rubrics) and a general task's folder (systems, databases, workspace, rubric and judge prompts)."""

from __future__ import annotations

from urllib.parse import urlencode

from rlx.adapters import blocks as b
from rlx.adapters.contract import Section
from rlx.adapters.rows import sections as rows_sections
from rlx.adapters.rows.processors.mimo_domains import DOMAIN_LABELS, GRADED_BY, REWARD_DESIGN


def _filter_href(domain: str) -> str:
    """The environment page's task list narrowed to one domain (relative: it is drawn on that page)."""
    return "?" + urlencode({"f": f"domain:{domain}"}) + "#tasks"


def overview(index) -> list[Section]:
    summary = index.summary
    domains = summary.get("domains") or {}
    total = sum(domains.values())
    tiles = [{"label": f"All domains · {total:,}", "href": "#tasks",
              "hint": f"{len(domains)} kinds of grader"}]
    for key, label in DOMAIN_LABELS.items():
        if label in domains:
            tiles.append({"label": f"{label} · {domains[label]:,}", "href": _filter_href(label),
                          "hint": f"Graded by {GRADED_BY[key]}"})
    main = summary.get("main_facets") or {}
    cells = [{"label": label, "n": n, "href": _filter_href(label), "hint": f"{label}: {n:,} tasks",
              "parts": [list(p) for p in main.get(label, [])]} for label, n in domains.items()]
    sections = [Section("domains", "Domains", [
        b.links(tiles),
        b.treemap(cells, title="The release by domain (area: tasks; inside: each domain's main facet)"),
    ])]
    sections.append(Section("reward-design", "How each domain is graded", [reward_table(), *rubric_blocks(
        summary.get("rubric") or {})]))
    twins = summary.get("twins") or []
    if twins:
        sections.append(Section("twins", "Harbor conversions", [b.links(
            [{"label": t, "href": f"/d/{t}", "hint": "the same tasks as Harbor task folders; rollouts are shared"}
             for t in twins])]))
    return sections + rows_sections.overview(index)[:1]


def reward_table():
    lines = ["| Domain | Reward | Judge | Not scored when |", "|---|---|---|---|"]
    for domain, reward, judge, unscored in REWARD_DESIGN:
        lines.append(f"| {DOMAIN_LABELS[domain]} | {reward} | {judge} | {unscored} |")
    lines.append("\n“Not scored” is never 0: such a rollout has no reward, with the reason.")
    return b.markdown("\n".join(lines))


def rubric_blocks(rubric: dict) -> list:
    if not rubric.get("checks"):
        return []
    methods = sorted(rubric["methods"].items(), key=lambda kv: -kv[1])
    tiers = sorted(rubric["tiers"].items(), key=lambda kv: -kv[1])
    return [
        b.kv([("General tasks with a rubric", f"{rubric['tasks']:,}"), ("Checks", f"{rubric['checks']:,}"),
              ("Tasks mixing weights", f"{rubric['mixed']:,}")], title="The general rubrics"),
        b.stats([{"label": "Checks by method", "items": methods}, {"label": "Checks by tier", "items": tiers}]),
        b.note("Tiers (critical, important, sanity) are labels; each check's weight is what counts.", "info"),
    ]


def folder_sections(task_id: str, folder: dict | None, image: str | None) -> list[Section]:
    """A general task's environment folder, as sections of its page."""
    if folder is None:
        return [Section("systems", "Its environment", [b.note(
            f"The release has no folder general/envs/{task_id}/ for this task, so its systems and workspace "
            "cannot be shown.", "warn")])]
    out = []
    systems = []
    for system in folder["systems"]:
        pairs = [(t["name"], f"{t['signature']}" + (f" — {t['doc']}" if t["doc"] else "")) for t in system["tools"]]
        systems.append(b.kv(pairs, title=f"{system['name']} ({system['path']}, {len(system['tools'])} tools)")
                       if pairs else b.note(f"{system['path']}: {system.get('problem') or 'no tools found'}",
                                            "warn"))
    if systems:
        out.append(Section("systems", "Systems (MCP servers the agent can call)", systems))
    databases = []
    for db in folder["databases"]:
        if db.get("problem"):
            databases.append(b.note(f"{db['path']}: {db['problem']}", "warn"))
            continue
        databases.append(b.kv([(t["name"], f"{t['rows']:,} rows · columns: {', '.join(t['columns'])}")
                               for t in db["tables"]], title=db["path"]))
    if databases:
        out.append(Section("databases", "Databases (SQLite, described; rows not shown)", databases))
    workspace = [{"path": w["path"], "type": "file", "size": w["size"], "withheld": None}
                 for w in folder["workspace"]]
    where = [b.kv([("Image", image)])] if image else []
    if workspace:
        where.append(b.files(workspace, title="Workspace files (open them in the file viewer below)"))
    if where:
        out.append(Section("workspace", "Where it runs", where))
    rubric = folder.get("rubric")
    if rubric:
        checks = [[item.get("id"), f"{item.get('tier') or 'unrated'} · {item.get('method') or '?'} · weight "
                   f"{item.get('weight', 1)} — {item.get('question') or ''}"] for item in rubric["items"]]
        blocks = [b.kv(checks, title=f"Rubric: {len(checks)} checks (pass anchors withheld)")]
        for name, text in rubric["prompts"].items():
            blocks.append(b.code(text, "text", title=f"Judge prompt ({name})"))
        out.append(Section("rubric", "The grader's rubric", blocks))
    if folder.get("problems"):
        out.append(Section("folder-problems", "Problems", [b.note("\n".join(folder["problems"][:12]), "warn")]))
    return out
