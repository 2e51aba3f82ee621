"""The MiMo release's layout: one parquet file per domain, the general domain's task folders, the image map.

The release is recognised by these files, not by its name: a copy under another name reads the same, and a
dataset named "mimo" without them is left to the other adapters.
"""

from __future__ import annotations

import re

DOMAIN_FILES = {"code": "code.parquet", "cyber": "cyber.parquet", "webdev": "webdev.parquet",
                "music": "music.parquet", "general": "general/train.parquet"}
ENVS_DIR = "general/envs"
IMAGE_MAPPING = "image-mapping.jsonl"
ROOT_DOMAINS_NEEDED = 2  # of code/cyber/webdev/music at the root, besides general/train.parquet
_TASK_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}\Z")


def is_release(root_files: set[str], general_entries: set[str]) -> bool:
    """Whether a repository's root files and its general/ folder's entries are laid out like the release."""
    at_root = sum(1 for domain, path in DOMAIN_FILES.items() if domain != "general" and path in root_files)
    return at_root >= ROOT_DOMAINS_NEEDED and DOMAIN_FILES["general"] in general_entries


def env_folder(task_id: str) -> str | None:
    """The repository folder of a general task's environment, or None for an id that cannot name one."""
    return f"{ENVS_DIR}/{task_id}" if _TASK_ID.match(task_id or "") and ".." not in task_id else None
