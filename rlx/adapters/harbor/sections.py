"""A Harbor task and a Harbor dataset as sections of contract blocks (the only thing pages draw)."""

from __future__ import annotations

from collections import Counter

from rlx.adapters import blocks as b
from rlx.adapters.contract import Section, TaskView, Withheld
from rlx.adapters.harbor.compose import describe
from rlx.adapters.harbor.layout import LAYOUTS, TERMINAL_BENCH_1
from rlx.adapters.harbor.numbers import plain, seconds
from rlx.adapters.harbor.steps import reward_strategy, steps_block
from rlx.adapters.key_labels import labelled

OVERVIEW_FACETS = [("category", "Category"), ("difficulty", "Difficulty"), ("grading", "Reward file"),
                   ("framework", "Test framework"), ("runtime", "Runs in"), ("network", "Network"),
                   ("runs_here", "Runs here"), ("steps", "Steps")]


def task_view(row, entry: dict, blobs: dict) -> TaskView:
    text = lambda path: blobs.get(entry["texts"].get(path, ""), None)  # noqa: E731
    config = entry.get("config") or {}
    layout = LAYOUTS[entry.get("format", "harbor")]
    sections = [_task_section(entry, text, config, layout)]
    if entry.get("error"):
        sections.insert(0, Section("problem", "Could not read this task", [b.note(entry["error"], "bad")]))
    if config:
        sections.append(_grading_section(entry, text, config, layout))
        sections.append(_environment_section(entry, text, config, layout))
        sections.append(_metadata_section(config, layout))
    tasks = entry.get("nested") or {}
    sections.append(Section("files", "Files", [b.files([
        {"path": p, "type": t, "size": s, "withheld": w, "task": tasks.get(p)} for p, t, s, w in entry["files"]])]))
    withheld = [Withheld(where, why) for where, why in entry.get("withheld", [])]
    facts = {k: row.facets.get(k) for k in ("difficulty", "category", "network", "runs_here") if row.facets.get(k)}
    return TaskView(ref=row.ref, title=row.title, sections=sections, withheld=withheld, facts=facts)


def _task_section(entry, text, config, layout) -> Section:
    parts = []
    instruction = text(layout.instruction)
    if instruction is not None and instruction.strip():
        parts.append(b.prompt(instruction))
    steps = config.get("steps") or []
    if steps:
        parts.append(steps_block(steps, text, config))
    if not parts:
        parts.append(b.note("This task has no instruction.md.", "warn"))
    return Section("task", "What the agent gets", parts)


def _grading_section(entry, text, config, layout) -> Section:
    grading = entry.get("grading", {})
    verifier = config.get("verifier", {})
    harness = entry.get("harness") or {}
    multi_step = bool(config.get("steps"))
    reward = {"reward.json": "reward.json: named scores", "reward.txt": "reward.txt: one number",
              "pass/fail": f"pass or fail: every test the {grading.get('parser', 'pytest')} parser reads from "
                           "run-tests.sh's output must pass",
              "unknown": "not found in the test scripts", "none": "no tests"}.get(grading.get("file"), "")
    if layout is TERMINAL_BENCH_1:
        runs = "in the agent's own shell session" if harness.get("same_shell") else \
            "in a fresh shell in the agent's container, after the agent"
    else:
        runs = ("in a separate container" if verifier.get("environment_mode") == "separate"
                else "in the agent's container, after the agent")
    pairs = [
        ("Reward", reward),
        ("Task reward", reward_strategy(config) if multi_step else None),
        ("Scores", grading.get("scores") if grading.get("file") == "reward.json" else None),
        ("Test framework", grading.get("framework")),
        ("Verifier timeout", "per step (see each step)" if multi_step else seconds(verifier.get("timeout_sec"))),
        ("Verifier runs", runs),
        ("Verifier network", verifier.get("network_mode")),
        ("Verifier variables", verifier.get("env") or None),
    ]
    parts = [b.kv(pairs)]
    grader = next((path for path in layout.graders if text(path) is not None), None)
    if grader is not None:
        parts.append(b.code(text(grader), "bash", grader, title="The verifier"))
    elif layout is TERMINAL_BENCH_1:
        parts.append(b.note("This task has no run-tests.sh: Terminal-Bench's default one runs the tests in tests/ "
                            "with pytest.", "info"))
    return Section("grading", "How it is graded", parts)


def _environment_section(entry, text, config, layout) -> Section:
    env = config.get("environment", {})
    runtime = entry.get("runtime", {})
    agent = config.get("agent", {})
    runs_in = {"image": f"the prebuilt image {runtime.get('image')}", "dockerfile": "an image built from its Dockerfile",
               "compose": f"{len(runtime.get('services') or []) or 'several'} containers started with "
                          f"docker-compose ({runtime.get('compose')})",
               "none": "nothing declared"}.get(runtime.get("kind"))
    pairs = [
        ("Runs in", runs_in),
        ("OS", env.get("os") if env.get("os") != "linux" else None),
        ("CPUs", plain(env.get("cpus"))),
        ("Memory", f"{env['memory_mb']:,} MB" if env.get("memory_mb") else None),
        ("Storage", f"{env['storage_mb']:,} MB" if env.get("storage_mb") else None),
        ("GPUs", env.get("gpus") or None),
        ("Network", _network(env)),
        ("Agent network", agent.get("network_mode")),
        ("Agent timeout", "per step (see each step)" if config.get("steps") else seconds(agent.get("timeout_sec"))),
        ("Working directory", env.get("workdir")),
        ("Build timeout", seconds(env.get("build_timeout_sec")) if layout is not TERMINAL_BENCH_1 else None),
    ]
    parts = [b.kv(pairs)]
    if runtime.get("kind") == "compose":
        parts.append(_services_block(runtime, layout))
    if runtime.get("runs_here"):
        parts.append(b.note("This task can run in this machine's sandbox.", "ok"))
        for caveat in runtime.get("caveats") or []:
            parts.append(b.note(caveat, "warn"))
    else:
        parts.append(b.note("It cannot run here: " + _sentences(runtime.get("why_not") or ["unknown reason."]),
                            "warn"))
    dockerfile = text(layout.dockerfile)
    if dockerfile is not None:
        parts.append(b.code(dockerfile, "docker", layout.dockerfile, title="Dockerfile"))
        plan = runtime.get("dockerfile") or {}
        if plan:
            replay = [f"{instr} {arg}" for instr, arg in plan.get("steps", [])]
            summary = (f"Replayable from {plan.get('base_image')}: {len(replay)} steps" if plan.get("replayable")
                       else "Not replayable: " + " ".join(plan.get("reasons", [])))
            parts.append(b.disclose(summary, [b.code("\n".join(replay) or "(no steps)", "docker")]))
    for compose in layout.composes:
        if text(compose) is not None:
            parts.append(b.code(text(compose), "yaml", compose, title="docker-compose file"))
    return Section("environment", "What it runs in", parts)


def _services_block(runtime: dict, layout):
    """Each compose service on one line; Harbor's agent container is there even when the file leaves it out."""
    services = list(runtime.get("services") or [])
    if runtime.get("compose_error"):
        return b.note(runtime["compose_error"], "warn")
    if layout.main_service not in {s["name"] for s in services}:
        services.insert(0, {"name": layout.main_service, "role": "the agent's container, added by Harbor"})
    return b.kv([(s["name"], describe(s)) for s in services], title="Services")


def _metadata_section(config, layout) -> Section:
    meta = config.get("metadata") or {}
    task = config.get("task") or {}
    flat = [(k, plain(v) if isinstance(v, float) else v) for k, v in meta.items()
            if isinstance(v, (str, int, float, bool, list))
            and not (isinstance(v, list) and any(isinstance(x, (dict, list)) for x in v))]
    nested = {k: v for k, v in meta.items() if k not in dict(flat)}
    parts = [b.kv([("Name", task.get("name")), ("Description", task.get("description")),
                   ("Keywords", task.get("keywords") or None), ("Format", layout.label),
                   ("Schema", config.get("schema_version")),
                   *labelled(flat)])]
    if nested:
        parts.append(b.value(nested, title="More metadata"))
    if config.get("extra"):
        title = "Other task.yaml keys" if layout is TERMINAL_BENCH_1 else "Keys Harbor does not define"
        parts.append(b.value(config["extra"], title=title))
    if config.get("legacy") and layout is TERMINAL_BENCH_1:
        parts.append(b.note(" ".join(config["legacy"]), "info"))
    elif config.get("legacy"):
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
    on_hf = sum(1 for r in rows if r.extra.get("hf"))
    pairs = [("Tasks", f"{len(index.rows):,}"),
             ("Runnable here", f"{_share(runnable, len(rows))} ({runnable:,} of {len(rows):,})" if rows else None),
             ("Runnable on an HF Sandbox", f"{_share(on_hf, len(rows))} ({on_hf:,} of {len(rows):,})" if rows else None),
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


def _sentences(reasons: list[str]) -> str:
    """Reasons as one text after a colon: the first starts lower-case, the others as sentences."""
    return " ".join((r[:1].lower() if i == 0 else r[:1].upper()) + r[1:] for i, r in enumerate(reasons))


def _share(n: int, total: int) -> str:
    return f"{round(100 * n / total)}%" if total else "–"


def _network(env: dict) -> str | None:
    mode = env.get("network_mode")
    if mode == "allowlist":
        return "only " + ", ".join(env.get("allowed_hosts") or [])
    return {"no-network": "none (no internet)", "public": "public internet"}.get(mode, mode)
