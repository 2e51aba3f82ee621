"""A Harbor task and a Harbor dataset as sections of contract blocks (the only thing pages draw)."""

from __future__ import annotations

from collections import Counter

from rlx.adapters import blocks as b
from rlx.adapters.contract import Section, TaskView, Withheld

OVERVIEW_FACETS = [("category", "Category"), ("difficulty", "Difficulty"), ("grading", "Reward file"),
                   ("framework", "Test framework"), ("runtime", "Runs in"), ("network", "Network"),
                   ("runs_here", "Runs here"), ("steps", "Steps")]


def task_view(row, entry: dict, blobs: dict) -> TaskView:
    text = lambda path: blobs.get(entry["texts"].get(path, ""), None)  # noqa: E731
    config = entry.get("config") or {}
    sections = [_task_section(entry, text, config)]
    if entry.get("error"):
        sections.insert(0, Section("problem", "Could not read this task", [b.note(entry["error"], "bad")]))
    if config:
        sections.append(_grading_section(entry, text, config))
        sections.append(_environment_section(entry, text, config))
        sections.append(_metadata_section(config))
    sections.append(Section("files", "Files", [b.files([
        {"path": p, "type": t, "size": s, "withheld": w} for p, t, s, w in entry["files"]])]))
    withheld = [Withheld(where, why) for where, why in entry.get("withheld", [])]
    facts = {k: row.facets.get(k) for k in ("difficulty", "category", "network", "runs_here") if row.facets.get(k)}
    return TaskView(ref=row.ref, title=row.title, sections=sections, withheld=withheld, facts=facts)


def _task_section(entry, text, config) -> Section:
    parts = []
    instruction = text("instruction.md")
    if instruction is not None and instruction.strip():
        parts.append(b.markdown(instruction))
    steps = config.get("steps") or []
    if steps:
        step_parts = []
        for step in steps:
            name = str(step.get("name", ""))
            body = text(f"steps/{name}/instruction.md")
            inner = [b.markdown(body)] if body else [b.note("This step's instruction is read when the task is "
                                                            "run; it is not in the index.", "info")]
            step_parts.append({"title": name or "step", "blocks": inner})
        parts.append(b.steps(step_parts, title=f"{len(steps)} steps, each with its own instruction"))
    if not parts:
        parts.append(b.note("This task has no instruction.md.", "warn"))
    return Section("task", "What the agent gets", parts)


def _grading_section(entry, text, config) -> Section:
    grading = entry.get("grading", {})
    verifier = config.get("verifier", {})
    reward = {"reward.json": "reward.json: named scores", "reward.txt": "reward.txt: one number",
              "unknown": "not found in the test scripts", "none": "no tests"}.get(grading.get("file"), "")
    pairs = [
        ("Reward", reward),
        ("Scores", grading.get("scores") if grading.get("file") == "reward.json" else None),
        ("Test framework", grading.get("framework")),
        ("Verifier timeout", _seconds(verifier.get("timeout_sec"))),
        ("Verifier runs", "in a separate container" if verifier.get("environment_mode") == "separate"
         else "in the agent's container, after the agent"),
        ("Verifier network", verifier.get("network_mode")),
        ("Verifier variables", verifier.get("env") or None),
    ]
    parts = [b.kv(pairs)]
    script = text("tests/test.sh") or text("tests/test.bat")
    if script is not None:
        parts.append(b.code(script, "bash", "tests/test.sh", title="The verifier"))
    return Section("grading", "How it is graded", parts)


def _environment_section(entry, text, config) -> Section:
    env = config.get("environment", {})
    runtime = entry.get("runtime", {})
    agent = config.get("agent", {})
    runs_in = {"image": f"the prebuilt image {runtime.get('image')}", "dockerfile": "an image built from its Dockerfile",
               "compose": "several containers (docker-compose)", "none": "nothing declared"}.get(runtime.get("kind"))
    pairs = [
        ("Runs in", runs_in),
        ("OS", env.get("os") if env.get("os") != "linux" else None),
        ("CPUs", env.get("cpus")),
        ("Memory", f"{env['memory_mb']:,} MB" if env.get("memory_mb") else None),
        ("Storage", f"{env['storage_mb']:,} MB" if env.get("storage_mb") else None),
        ("GPUs", env.get("gpus") or None),
        ("Network", _network(env)),
        ("Agent network", agent.get("network_mode")),
        ("Agent timeout", _seconds(agent.get("timeout_sec"))),
        ("Working directory", env.get("workdir")),
        ("Build timeout", _seconds(env.get("build_timeout_sec"))),
    ]
    parts = [b.kv(pairs)]
    if runtime.get("runs_here"):
        parts.append(b.note("This task can run in this machine's sandbox.", "ok"))
    else:
        parts.append(b.note("It cannot run here: " + " ".join(runtime.get("why_not") or ["unknown reason."]),
                            "warn"))
    dockerfile = text("environment/Dockerfile")
    if dockerfile is not None:
        parts.append(b.code(dockerfile, "docker", "environment/Dockerfile", title="Dockerfile"))
        plan = runtime.get("dockerfile") or {}
        if plan:
            replay = [f"{instr} {arg}" for instr, arg in plan.get("steps", [])]
            summary = (f"Replayable from {plan.get('base_image')}: {len(replay)} steps" if plan.get("replayable")
                       else "Not replayable: " + " ".join(plan.get("reasons", [])))
            parts.append(b.disclose(summary, [b.code("\n".join(replay) or "(no steps)", "docker")]))
    for compose in ("environment/docker-compose.yaml", "environment/docker-compose.yml"):
        if text(compose) is not None:
            parts.append(b.code(text(compose), "yaml", compose, title="Services"))
    return Section("environment", "What it runs in", parts)


def _metadata_section(config) -> Section:
    meta = config.get("metadata") or {}
    task = config.get("task") or {}
    flat = [(k, v) for k, v in meta.items() if isinstance(v, (str, int, float, bool, list))
            and not (isinstance(v, list) and any(isinstance(x, (dict, list)) for x in v))]
    nested = {k: v for k, v in meta.items() if k not in dict(flat)}
    parts = [b.kv([("Name", task.get("name")), ("Description", task.get("description")),
                   ("Keywords", task.get("keywords") or None), ("Schema", config.get("schema_version")),
                   *flat])]
    if nested:
        parts.append(b.value(nested, title="More metadata"))
    if config.get("extra"):
        parts.append(b.value(config["extra"], title="Keys Harbor does not define"))
    if config.get("legacy"):
        parts.append(b.note("Legacy fields, read as Harbor does: " + " ".join(config["legacy"]), "info"))
    return Section("metadata", "Metadata", parts)


def overview(index, readme: str | None) -> list[Section]:
    rows = [r for r in index.rows if not r.extra.get("pending")]
    groups = []
    for key, label in OVERVIEW_FACETS:
        counts = Counter(str(r.facets[key]) for r in rows if r.facets.get(key) not in (None, ""))
        if counts:
            groups.append({"label": label, "key": key, "items": counts.most_common(12)})
    tags = Counter(t for r in rows for t in r.facets.get("tags", []))
    if tags:
        groups.append({"label": "Tags", "key": "tags", "items": tags.most_common(8)})
    runnable = sum(1 for r in rows if r.facets.get("runs_here") == "yes")
    dockerfiles = [r for r in rows if r.facets.get("runtime") == "dockerfile"]
    replayable = sum(1 for r in dockerfiles if r.extra.get("replayable"))
    pairs = [("Tasks", f"{len(index.rows):,}"),
             ("Runnable here", f"{_share(runnable, len(rows))} ({runnable:,} of {len(rows):,})" if rows else None),
             ("Dockerfiles replayable", f"{_share(replayable, len(dockerfiles))} ({replayable:,} of "
              f"{len(dockerfiles):,})" if dockerfiles else None),
             ("Read from", f"revision {index.revision[:10]}" if index.revision else None),
             ("Indexed", index.built_at[:16].replace("T", " ") + " UTC" if index.built_at else None)]
    sections = [Section("summary", "At a glance", [b.kv(pairs), b.stats(groups)])]
    if index.summary.get("walked"):
        sections[0].blocks.append(b.note("This repository is large: it was walked level by level, and each "
                                         "task's other folders are listed when you open them.", "info"))
    if readme:
        sections.append(Section("card", "Dataset card", [b.disclose("Read the dataset card", [b.markdown(readme)])]))
    return sections


def _share(n: int, total: int) -> str:
    return f"{round(100 * n / total)}%" if total else "–"


def _seconds(value) -> str | None:
    if value in (None, ""):
        return None
    value = float(value)
    return f"{value / 60:g} min" if value >= 120 else f"{value:g} s"


def _network(env: dict) -> str | None:
    mode = env.get("network_mode")
    if mode == "allowlist":
        return "only " + ", ".join(env.get("allowed_hosts") or [])
    return {"no-network": "none (no internet)", "public": "public internet"}.get(mode, mode)
