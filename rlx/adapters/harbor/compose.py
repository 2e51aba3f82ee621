"""The services of a task's docker-compose file: names, images or builds, ports. Read, never run.

Harbor merges a task's `environment/docker-compose.yaml` over its own base files, in which `main` is the agent's
container (built from environment/ or pulled from `docker_image`): a task only overrides `main` and adds
services. Terminal-Bench 1 tasks keep theirs at the task root, the agent's container being `client`.
Environment values are left out (they may hold credentials or expected values); the page shows the file itself,
masked like any other.
"""

from __future__ import annotations

import yaml

from rlx.sources.yamlsafe import YamlTooLarge, load_bounded

MAX_SERVICES = 50
MAX_PORTS = 20


def read_services(text: str, main: str = "main") -> tuple[list[dict], str | None]:
    """[{name, image, build, ports, role}] in the file's order, and a sentence when the file cannot be read."""
    try:
        data = load_bounded(text)
    except YamlTooLarge as exc:
        return [], f"The docker-compose file is refused: {exc}."
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        return [], f"The docker-compose file is not valid YAML{where}."
    services = data.get("services") if isinstance(data, dict) else None
    if not isinstance(services, dict):
        return [], "The docker-compose file declares no services."
    out = []
    for name, spec in list(services.items())[:MAX_SERVICES]:
        spec = spec if isinstance(spec, dict) else {}
        out.append({
            "name": str(name),
            "image": _text(spec.get("image")),
            "build": _build(spec.get("build")),
            "ports": _ports(spec.get("ports")) + [f"{p} (internal)" for p in _ports(spec.get("expose"))],
            "role": "the agent's container" if str(name) == main else None,
        })
    return out, None


def describe(service: dict) -> str:
    """One line: how the service is made, and what it exposes."""
    made = []
    if service.get("build"):
        made.append(f"built from {service['build']}")
    if service.get("image") and not _is_placeholder(service["image"]):
        made.append(f"image {service['image']}")
    if not made:
        made.append("as Harbor makes it" if service.get("role") else "no image or build given")
    line = ", ".join(made)
    if service.get("ports"):
        line += "; ports " + ", ".join(service["ports"])
    if service.get("role"):
        line += f" ({service['role']})"
    return line


def _build(value) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        context = _text(value.get("context")) or "."
        dockerfile = _text(value.get("dockerfile"))
        return f"{context.rstrip('/')}/{dockerfile}" if dockerfile else context
    return None


def _ports(value) -> list[str]:
    if not isinstance(value, list):
        return [str(value)] if isinstance(value, (int, str)) else []
    ports = []
    for item in value[:MAX_PORTS]:
        if isinstance(item, dict):
            target, published = item.get("target"), item.get("published")
            ports.append(f"{published}:{target}" if published else str(target))
        elif isinstance(item, (int, str)):
            ports.append(str(item))
    return ports


def _text(value) -> str | None:
    return str(value) if isinstance(value, (str, int, float)) and str(value).strip() else None


def _is_placeholder(image: str) -> bool:
    """Harbor and Terminal-Bench fill some image names in at run time (${MAIN_IMAGE_NAME})."""
    return image.startswith("${")
