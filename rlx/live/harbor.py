"""OpenEnv × Harbor servers (openenv.harbor's `harbor_env`): the engine, sandboxes, agents and datasets they
serve, from their `capabilities` tool and their Task API splits (a split there is a dataset spec)."""

from __future__ import annotations

import json

from rlx.live.client import SpaceClient
from rlx.live.errors import LiveError
from rlx.sources.names import is_repo_id

MAX_ITEMS = 60


def is_harbor(report: dict) -> bool:
    names = {t["name"] for t in report.get("tools") or []}
    return {"run_rollout", "capabilities"} <= names or "harbor_env" in report.get("environments", [])


def harbor_facts(client: SpaceClient, report: dict) -> dict | None:
    """{engine, model, sandboxes, agents, datasets, error} for a Harbor server, or None for any other server.
    Only `capabilities` is called: `run_rollout` takes minutes and credentials, so it is never invoked here."""
    if not is_harbor(report):
        return None
    facts = {"engine": "Harbor (openenv.harbor)", "model": None, "sandboxes": [], "agents": [], "datasets": [],
             "error": None}
    caps = {}
    try:
        caps = _capabilities(client)
    except LiveError as exc:
        facts["error"] = str(exc)
    llm = caps.get("llm") if isinstance(caps.get("llm"), dict) else {}
    facts["model"] = str(llm.get("model"))[:200] if llm.get("model") else None
    facts["sandboxes"] = [{"name": str(s.get("name"))[:80], "available": bool(s.get("available")),
                           "detail": str(s.get("detail") or "")[:200]}
                          for s in _items(caps.get("sandboxes")) if s.get("name")]
    facts["agents"] = [{"name": str(h.get("name"))[:80], "status": str(h.get("status") or "")[:120],
                        "kind": str(h.get("kind") or "")[:40]}
                       for h in _items(caps.get("harnesses")) if h.get("name")]
    served = {d["name"]: d for d in _items(caps.get("datasets")) if isinstance(d.get("name"), str)}
    for env in report.get("task_api", {}).values():
        for split in env.get("splits") or []:
            served.setdefault(split["name"], split)
    facts["datasets"] = [{"spec": name[:200], "hub_id": hub_dataset_id(name),
                          "num_tasks": d.get("num_tasks") if isinstance(d.get("num_tasks"), int) else None,
                          "error": str(d["error"])[:200] if d.get("error") else None}
                         for name, d in list(served.items())[:MAX_ITEMS]]
    return facts


def _capabilities(client: SpaceClient) -> dict:
    answer = client.post_json("/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                       "params": {"name": "capabilities", "arguments": {}}},
                              "The Harbor capabilities tool")
    result = answer.get("result") if isinstance(answer, dict) else None
    if not isinstance(result, dict):
        raise LiveError("The Harbor capabilities tool answered an error.", "status")
    structured = result.get("structured_content", result.get("structuredContent"))
    text = structured.get("result") if isinstance(structured, dict) else None
    if text is None:
        text = next((c.get("text") for c in result.get("content") or [] if isinstance(c, dict)), None)
    try:
        caps = json.loads(text) if isinstance(text, str) else text
    except ValueError:
        raise LiveError("The Harbor capabilities tool answered text that is not JSON.", "not_json") from None
    if not isinstance(caps, dict):
        raise LiveError("The Harbor capabilities tool answered something that is not an object.", "not_json")
    return caps


def _items(value) -> list[dict]:
    return [v for v in value[:MAX_ITEMS] if isinstance(v, dict)] if isinstance(value, list) else []


def hub_dataset_id(spec: str) -> str | None:
    """A split or dataset spec that names a Hub dataset ("org/name", maybe "hf://datasets/org/name[@rev]")."""
    text = spec.strip()
    for prefix in ("hf://datasets/", "datasets/", "https://huggingface.co/datasets/"):
        if text.startswith(prefix):
            text = text[len(prefix):]
    text = text.split("@", 1)[0].rstrip("/")
    return text if is_repo_id(text) else None
