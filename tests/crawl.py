"""A visitor's crawl of one dataset: every page, partial and JSON answer reachable from its environment page.

Starts at the environment page and its JSON, follows every link that stays inside the dataset (task pages, the
file viewer, folder listings, task-list pages and each facet value on its own), asks for each task's JSON, each
file's full view, each folder's listing (withheld folders too), and each file the fixture holds on disk
(withheld ones and those of nested tasks too, through every task whose folder holds them). The crawl is bounded;
running past the bound fails the test rather than checking less.
"""

from __future__ import annotations

import html
import re
import sqlite3
from collections import deque
from pathlib import Path
from urllib.parse import quote, urlsplit

MAX_URLS = 3000
_HREF = re.compile(r'(?:href|hx-get)="([^"]+)"')


def crawl(client, dataset: str, folder_on_disk: Path | None = None) -> dict[str, str]:
    """{url: body} for everything a visitor can reach in `dataset` ("org/name")."""
    start = [f"/d/{dataset}", f"/api/env/{dataset}"]
    seen: dict[str, str] = {}
    queue = deque(start)
    tasks: set[str] = set()
    while queue:
        url = queue.popleft()
        if url in seen:
            continue
        assert len(seen) < MAX_URLS, "the crawl ran past its bound"
        response = client.get(url)
        assert response.status_code in (200, 302, 303, 404), (url, response.status_code)
        body = response.get_data(as_text=True)
        seen[url] = body
        if response.status_code in (302, 303):  # a redirect (a random task) is followed like a link
            target = urlsplit(response.headers["Location"])
            queue.extend(_links(f'href="{target.path}?{target.query}"', dataset))
            continue
        if response.status_code != 200:
            continue
        for link in _links(body, dataset):
            queue.append(link)
            ref = _task_ref(link, dataset)
            if ref is not None and ref not in tasks:
                tasks.add(ref)
                queue.append(f"/api/task/{dataset}/{ref}")
                queue.extend(_probes(dataset, ref, folder_on_disk))
            if link.startswith("/t/") and "?f=" in link and "view=full" not in link:
                queue.append(link + "&view=full")
        if url.startswith("/api/task/"):
            ref = url[len(f"/api/task/{dataset}/"):]
            queue.extend(_folder_urls(dataset, ref, response.get_json()))
    return seen


def _links(body: str, dataset: str) -> list[str]:
    links = []
    for raw in _HREF.findall(body):
        link = html.unescape(raw).split("#", 1)[0]
        if link.startswith(f"/d/{dataset}") and link.count("f=") <= 1:  # each facet value once, not every mix
            links.append(link)
        elif link.startswith(f"/t/{dataset}/"):
            links.append(link)
    return links


def _task_ref(link: str, dataset: str) -> str | None:
    path = urlsplit(link).path
    prefix = f"/t/{dataset}/"
    if not path.startswith(prefix):
        return None
    ref = path[len(prefix):]
    return ref[: -len("/folder")] if ref.endswith("/folder") else ref


def _folder_urls(dataset: str, ref: str, body) -> list[str]:
    """Every folder the task's file list names, withheld ones included: a visitor can type any of them."""
    urls = []
    for section in (body or {}).get("sections", []):
        for block in section.get("blocks", []):
            if block.get("kind") != "files":
                continue
            for entry in block["data"]["entries"]:
                if entry["type"] == "directory":
                    urls.append(f"/t/{dataset}/{ref}/folder?p={quote(entry['path'])}")
                else:
                    urls.append(f"/t/{dataset}/{ref}?f={quote(entry['path'])}")
    return urls


def _probes(dataset: str, ref: str, folder_on_disk: Path | None) -> list[str]:
    """Each file under the task's folder on disk, asked through this task's viewer, whatever the page links."""
    if folder_on_disk is None:
        return []
    task = folder_on_disk / ref
    if not task.is_dir():
        return []
    urls = []
    for path in sorted(task.rglob("*")):
        rel = quote(path.relative_to(task).as_posix())
        if path.is_dir():
            urls.append(f"/t/{dataset}/{ref}/folder?p={rel}")
        else:
            urls += [f"/t/{dataset}/{ref}?f={rel}", f"/t/{dataset}/{ref}?f={rel}&view=full"]
    return urls


def sqlite_text(root: Path) -> dict[str, str]:
    """All text stored in every SQLite database under `root` (the published snapshot and its copies)."""
    found = {}
    for path in root.rglob("*"):
        if not path.is_file() or path.read_bytes()[:16] != b"SQLite format 3\x00":
            continue
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            parts = []
            for name in names:
                for row in db.execute(f'SELECT * FROM "{name}"'):
                    parts.extend(str(value) for value in row if isinstance(value, (str, bytes)))
            found[f"sqlite:{path}"] = "\n".join(parts)
        finally:
            db.close()
    return found
