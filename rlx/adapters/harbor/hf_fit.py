"""Whether an HF Sandbox can run a Harbor task, and why not: one CPU machine started from one image, with the
network on or cut (never an allowlist). The image is the task's prebuilt one, or the base image of a Dockerfile
whose steps the replay can run there (FROM, then WORKDIR, ENV, COPY from the build context, RUN)."""

from __future__ import annotations


def hf_reasons(entry: dict) -> list[str]:
    """Why an HF Sandbox cannot run the task of this index entry; empty when it can."""
    runtime, config = entry.get("runtime") or {}, entry.get("config") or {}
    environment = config.get("environment") or {}
    plan = runtime.get("dockerfile") or {}
    reasons = []
    if not runtime or not config:
        reasons.append("its task.toml could not be read, so Harbor cannot run it.")
    elif entry.get("format", "harbor") != "harbor":
        reasons.append("it is in the older Terminal-Bench format (run-tests.sh), which Harbor's trials do not run.")
    elif runtime.get("kind") == "compose":
        reasons.append("it runs as several containers with docker-compose; an HF Sandbox starts one.")
    elif runtime.get("kind") == "dockerfile" and not plan.get("replayable"):
        reasons.append("its Dockerfile has steps an HF Sandbox cannot replay from the base image: "
                       + " ".join(plan.get("reasons") or ["it names no base image."]))
    elif not runtime.get("image") and runtime.get("kind") != "dockerfile":
        reasons.append("an HF Sandbox starts an image, and this task names none and ships no Dockerfile.")
    if (environment.get("gpus") or 0) > 0 or environment.get("gpu_types") or environment.get("tpu"):
        reasons.append("it asks for GPUs or TPUs, and runs from here use a CPU sandbox (cpu-basic).")
    if environment.get("os") == "windows":
        reasons.append("it needs Windows; HF Sandboxes run Linux.")
    if "allowlist" in [(config.get(t) or {}).get("network_mode") for t in ("environment", "agent", "verifier")]:
        reasons.append("its network is limited to an allowlist, which an HF Sandbox cannot enforce.")
    return reasons


def hf_image(entry: dict) -> str | None:
    """The image an HF Sandbox starts for the task: its prebuilt one, else its Dockerfile's base image."""
    runtime = entry.get("runtime") or {}
    return runtime.get("image") or (runtime.get("dockerfile") or {}).get("base_image")
