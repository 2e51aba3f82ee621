"""Print the scheduled HF Job that runs the indexer every hour; with --apply, create it.

    uv run python scripts/schedule_indexer.py --space FineEnvs/RL-Explorer --bucket FineEnvs/rl-explorer-data
    HF_TOKEN=hf_... uv run python scripts/schedule_indexer.py --space ... --bucket ... --apply

The Job runs the explorer Space's own image, so it indexes with exactly the code the Space serves. The storage
bucket is mounted read-write at /data, where the Space reads the same files; HF_TOKEN travels as a Job secret
(it raises the rate limits for public downloads; the catalog itself is listed anonymously).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass

import click

SCHEDULE = "@hourly"
FLAVOR = "cpu-upgrade"
TIMEOUT_S = 55 * 60  # under the hour, so a slow run ends before the next one is due
COMMAND = ("rlx", "snapshot", "build")
MOUNT_PATH = "/data"
_REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")


@dataclass(frozen=True)
class IndexerSchedule:
    space: str  # the explorer Space, "org/name": its image runs the Job
    bucket: str  # the storage bucket, "org/name", mounted at /data
    namespace: str  # who owns the scheduled Job

    @property
    def image(self) -> str:
        return f"hf.co/spaces/{self.space}"

    @property
    def env(self) -> dict[str, str]:
        return {"STORAGE_DIR": MOUNT_PATH, "RLX_SOURCE": "hub"}

    def volumes(self) -> list:
        from huggingface_hub import Volume

        return [Volume(type="bucket", source=self.bucket, mount_path=MOUNT_PATH, read_only=False)]

    def create_arguments(self, token: str) -> dict:
        """The keyword arguments of HfApi.create_scheduled_job."""
        return {"image": self.image, "command": list(COMMAND), "schedule": SCHEDULE, "concurrency": False,
                "flavor": FLAVOR, "timeout": TIMEOUT_S, "env": self.env, "secrets": {"HF_TOKEN": token},
                "volumes": self.volumes(), "namespace": self.namespace}

    def as_text(self) -> str:
        """What --apply would create, as JSON for a person to read (the token is never printed)."""
        shown = {**self.create_arguments("<HF_TOKEN>"), "volumes": [v.to_dict() for v in self.volumes()]}
        return json.dumps(shown, indent=2)


def _repo_id(ctx, param, value: str) -> str:
    if not _REPO_ID.match(value or ""):
        raise click.BadParameter(f"{value!r} is not a repository id (expected org/name).")
    return value


@click.command()
@click.option("--space", required=True, callback=_repo_id, help="The explorer Space (org/name) whose image runs.")
@click.option("--bucket", required=True, callback=_repo_id, help="The storage bucket (org/name) mounted at /data.")
@click.option("--namespace", default=None, help="Who owns the Job (default: the Space's owner).")
@click.option("--endpoint", default=lambda: os.environ.get("HF_ENDPOINT", "https://huggingface.co"),
              show_default="HF_ENDPOINT or https://huggingface.co", help="The Hub to create the Job on.")
@click.option("--token", envvar="HF_TOKEN", default=None, help="Creates the Job and becomes its HF_TOKEN secret "
              "(default: the HF_TOKEN variable).")
@click.option("--apply", is_flag=True, help="Create the scheduled Job (otherwise only print it).")
def main(space: str, bucket: str, namespace: str | None, endpoint: str, token: str | None, apply: bool) -> None:
    """Print the hourly indexer Job; create it with --apply."""
    schedule = IndexerSchedule(space=space, bucket=bucket, namespace=namespace or space.split("/", 1)[0])
    click.echo(f"The scheduled HF Job ({'creating it' if apply else 'not created; pass --apply to create it'}):")
    click.echo(schedule.as_text())
    if not apply:
        return
    if not token:
        raise click.ClickException("--apply needs a token: pass --token or set HF_TOKEN.")
    import httpx2
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError

    try:
        info = HfApi(endpoint=endpoint.rstrip("/")).create_scheduled_job(**schedule.create_arguments(token),
                                                                          token=token)
    except HfHubHTTPError as exc:
        status = exc.response.status_code if exc.response is not None else "an error"
        reason = " ".join((exc.server_message or "no reason given").split())
        raise click.ClickException(f"The Hub refused the scheduled Job ({status}): {reason}") from None
    except httpx2.TransportError as exc:
        raise click.ClickException(f"The Hub at {endpoint} could not be reached ({exc}).") from None
    next_run = info.status.next_job_run_at.isoformat() if info.status.next_job_run_at else "not announced"
    click.echo(f"Created the scheduled Job {info.id} for {info.owner.name} ({info.schedule}; next run: {next_run}).")


if __name__ == "__main__":
    main()
