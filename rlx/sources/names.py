"""The Hub's naming rule, written once: an organization or user name and a repository name are each 1 to 96
letters, digits, `.`, `_` or `-`, beginning with a letter or digit. Every id that reaches a URL path, a file path
or the settings file is checked against these, so nothing else can ride along (`..`, `/`, `?`, a newline).
"""

from __future__ import annotations

import re

_PART = r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}"

NAME_PART = re.compile(rf"^{_PART}\Z")  # an organization, a user, or a repository's own name
REPO_ID = re.compile(rf"^{_PART}/{_PART}\Z")  # org/name
ENV_ID = re.compile(rf"^(space:)?{_PART}/{_PART}\Z")  # an environment as the settings file names it


def is_repo_id(text: str | None) -> bool:
    return bool(text) and REPO_ID.match(text) is not None


def is_org_and_name(org: str, name: str) -> bool:
    return NAME_PART.match(org or "") is not None and NAME_PART.match(name or "") is not None
