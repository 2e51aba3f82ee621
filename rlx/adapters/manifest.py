"""The Hub's `environment.yaml` manifest: what a dataset's authors declare it to be, read before our guesses.

The spec (huggingface/hub-docs docs/hub/datasets-rl-environments.md; `hf-rl-env-0.1`, a sibling page says
`hf-env-0.1`: both accepted): a top-level `spec_version` and `environments`, a list whose items need an `id` and
`frameworks` (harbor, verifiers, openenv, ...) and may carry `title`, `config_name` (a Dataset Viewer config),
`splits`, `dataset` (where the tasks are), `runtime` (isolation, resources, network, secrets) and `reward`.

A manifest that names a framework we read chooses the adapter (registry.pick asks here first); it is shown on
the environment page as declared. A file that is not a manifest (bad YAML, no environments) is ignored and its
problem said, never a failure. Its text is walked like any metadata: an answer-named key inside is withheld.
"""

from __future__ import annotations

from typing import Any

import yaml

from rlx.adapters import blocks as b
from rlx.adapters.contract import Section
from rlx.adapters.withhold import strip_answers
from rlx.sources.errors import SourceError
from rlx.sources.yamlsafe import load_bounded

PATH = "environment.yaml"
MAX_BYTES = 256 * 1024
MAX_ENVIRONMENTS = 50
# Which adapter reads each declared framework (the first the manifest names that we know wins).
FRAMEWORK_ADAPTERS = {"harbor": "harbor", "verifiers": "rows", "nemo-gym": "rows", "nemo_gym": "rows",
                      "verl": "rows", "skyrl": "rows", "openenv": "rows"}
FIELDS = ("title", "config_name", "splits", "dataset", "runtime", "reward")


# Tags that state a framework by themselves: a dataset carrying one and not `rl-environment` (the tag the Hub adds
# with a manifest) is not asked for a manifest when its adapter is chosen, which saves a request per dataset.
FRAMEWORK_TAGS = frozenset({"harbor", "verifiers", "nemo-gym", "verl", "skyrl", "openenv"})


def may_declare(record) -> bool:
    tags = set(record.tags)
    return "rl-environment" in tags or not (FRAMEWORK_TAGS & tags)


def read_manifest(env) -> dict | None:
    """The dataset's manifest as {spec_version, environments: [...], problems: [...]}, or None when it has none
    (or may not declare one: `may_declare`)."""
    if env.repo_type != "dataset" or not may_declare(env.record):
        return None
    try:
        if not env.source.paths_info(env.repo_type, env.id, [PATH], revision=env.revision, token=env.token):
            return None
        raw = env.source.read_file(env.repo_type, env.id, PATH, revision=env.revision, token=env.token,
                                   max_bytes=MAX_BYTES)
    except SourceError:
        return None  # unreadable now: the heuristics decide, as for a dataset without one
    return parse_manifest(raw)


def parse_manifest(raw: bytes) -> dict:
    try:
        data = load_bounded(raw.decode("utf-8", errors="replace"))
    except yaml.YAMLError as exc:  # YamlTooLarge among them: an alias bomb, a value holding itself, deep nesting
        return {"spec_version": None, "environments": [], "problems": [f"{PATH} is not valid YAML ({str(exc)[:120]})."]}
    if not isinstance(data, dict):
        return {"spec_version": None, "environments": [], "problems": [f"{PATH} holds no mapping."]}
    data, _ = strip_answers(data)
    problems, environments = [], []
    items = data.get("environments")
    if not isinstance(items, list) or not items:
        problems.append(f"{PATH} lists no environments.")
    for n, item in enumerate(items[:MAX_ENVIRONMENTS] if isinstance(items, list) else []):
        if not isinstance(item, dict) or not item.get("id"):
            problems.append(f"environments[{n}] has no id.")
            continue
        frameworks = item.get("frameworks")
        frameworks = [frameworks] if isinstance(frameworks, str) else frameworks
        if not isinstance(frameworks, list) or not frameworks:
            problems.append(f"environments[{n}] ({item['id']}) names no frameworks.")
            frameworks = []
        environments.append({"id": str(item["id"])[:200], "frameworks": [str(f)[:60] for f in frameworks[:10]],
                             **{k: item[k] for k in FIELDS if item.get(k) not in (None, "", [], {})}})
    spec = data.get("spec_version")
    return {"spec_version": str(spec)[:40] if spec is not None else None, "environments": environments,
            "problems": problems}


def adapter_key(manifest: dict | None) -> str | None:
    """The adapter the manifest's first known framework calls for, or None."""
    for environment in (manifest or {}).get("environments", []):
        for framework in environment["frameworks"]:
            if framework.lower() in FRAMEWORK_ADAPTERS:
                return FRAMEWORK_ADAPTERS[framework.lower()]
    return None


def manifest_sections(manifest: dict | None) -> list[Section]:
    """The manifest as the environment page shows it: each declared environment with its fields."""
    if not manifest:
        return []
    parts = [b.kv([("Spec", manifest.get("spec_version")),
                   ("Environments", len(manifest["environments"]))])]
    for environment in manifest["environments"]:
        pairs = [("Frameworks", ", ".join(environment["frameworks"]))]
        pairs += [(k.replace("_", " ").capitalize(), _text(environment[k])) for k in FIELDS if k in environment]
        parts.append(b.kv(pairs, title=environment["id"]))
    if manifest.get("problems"):
        parts.append(b.note("\n".join(f"- {p}" for p in manifest["problems"][:12]), "warn",
                            title="Not read from the manifest"))
    return [Section("manifest", f"Declared in {PATH}", parts)]


def _text(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return yaml.safe_dump(value, sort_keys=False, allow_unicode=True, width=100).strip()[:2000]
    return str(value)[:2000]
