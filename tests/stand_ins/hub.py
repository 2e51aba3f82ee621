"""A stand-in for the Hugging Face Hub: a real HTTP server on 127.0.0.1 speaking the Hub's own routes and shapes.

huggingface_hub talks to it exactly as to the Hub (`HfApi(endpoint=hub.url)` or `HF_ENDPOINT`): listings paginated
with absolute Link headers, repository info, trees, form-encoded paths-info, resolve with ETag and X-Repo-Commit,
errors carrying X-Error-Code, private and gated repositories per token. Tests steer it with fault switches (latency,
queued failures, slow routes) and read back what it was asked through its request log.

Repositories live in memory. Load them from a folder laid out like the Hub (`datasets/<org>/<name>/...`,
`spaces/<org>/<name>/...`, an optional `.hub.json` per repository holding Hub-API keys), or build them in code with
`add_repo`. Each repository indexes its folders once, so a tree of 130,000 files is served page by page cheaply.
"""

from __future__ import annotations

import base64
import hashlib
import json
import mimetypes
import os
import re
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterable
from urllib.parse import parse_qs, parse_qsl, unquote, urlencode, urlsplit

import yaml

from tests.stand_ins import viewer

REPO_TYPES = {"datasets": "dataset", "spaces": "space"}
DEFAULT_DATE = "2025-01-01T00:00:00.000Z"
SORT_KEYS = {"trendingScore", "likes", "downloads", "lastModified", "createdAt"}
# The properties huggingface_hub 2.4.0 may ask for with `expand` (its ExpandDatasetProperty_T / ExpandSpaceProperty_T).
EXPANDABLE = {
    "dataset": {
        "author", "cardData", "citation", "createdAt", "description", "disabled", "downloads", "downloadsAllTime",
        "gated", "lastModified", "likes", "mainSize", "paperswithcode_id", "private", "resourceGroup", "sha",
        "siblings", "tags", "trendingScore", "usedStorage",
    },
    "space": {
        "author", "cardData", "createdAt", "datasets", "disabled", "lastModified", "likes", "models", "private",
        "region", "resourceGroup", "runtime", "sdk", "sha", "siblings", "subdomain", "tags", "trendingScore",
        "usedStorage",
    },
}  # fmt: skip
LIST_DEFAULT = {
    "dataset": ("author", "sha", "lastModified", "private", "gated", "disabled", "downloads", "likes", "tags",
                "trendingScore", "createdAt"),
    "space": ("author", "sha", "lastModified", "private", "likes", "sdk", "tags", "trendingScore", "createdAt"),
}  # fmt: skip
INFO_DEFAULT = {
    "dataset": LIST_DEFAULT["dataset"] + ("cardData", "siblings", "usedStorage"),
    "space": LIST_DEFAULT["space"] + ("cardData", "siblings", "usedStorage", "runtime", "subdomain", "host", "models",
                                      "datasets"),
}  # fmt: skip
BAD_TOKEN = "Invalid credentials in Authorization header"
CUT = 0  # a queued fault with this status hangs up instead of answering


class _Cut(Exception):
    """Raised by a `cut` fault: the handler hangs up without sending a response."""


class HubError(Exception):
    """An error answer: status, a sentence, and the Hub's X-Error-Code (plus extra headers, e.g. X-Repo-Commit)."""

    def __init__(self, status: int, message: str, code: str | None = None, headers: dict | None = None):
        super().__init__(message)
        self.status, self.message, self.code, self.headers = status, message, code, headers or {}


# --------------------------------------------------------------------------------------------------- repositories


def front_matter(readme: bytes) -> dict:
    """The YAML between the leading `---` lines of a README, as the Hub reads it into cardData ({} when none)."""
    text = readme.decode("utf-8", "replace").lstrip("\ufeff")
    match = re.match(r"---[ \t]*\r?\n(.*?\r?\n)?---[ \t]*(\r?\n|$)", text, re.S)
    if not match:
        return {}
    try:
        data = yaml.safe_load(match.group(1) or "")
    except yaml.YAMLError:
        return {}
    return data if isinstance(data, dict) else {}


def _as_list(value) -> list:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def _hash(*parts: bytes | str) -> str:
    digest = hashlib.sha1()
    for part in parts:
        digest.update(part.encode() if isinstance(part, str) else part)
    return digest.hexdigest()


class Repo:
    """One repository: its files (path -> bytes), its Hub metadata (camelCase keys), its commit sha.

    The folder index is built once here; treat `files` as frozen (add the repository again to change it).
    """

    def __init__(self, repo_type: str, repo_id: str, files: dict[str, bytes], meta: dict | None = None):
        self.repo_type, self.repo_id = repo_type, repo_id
        self.files = files
        self.meta = dict(meta or {})
        self.card = {**front_matter(files.get("README.md", b"")), **(self.meta.get("cardData") or {})}
        tags = [str(t) for t in _as_list(self.card.get("tags")) + _as_list(self.meta.get("tags"))]
        self.tags = list(dict.fromkeys(tags))
        self.sha = str(self.meta.get("sha") or self._content_sha())
        self.children = self._index()
        self._oids: dict[str, str] = {}
        self._listings: dict[tuple[str, bool], list[tuple[str, bool]]] = {}

    def _content_sha(self) -> str:
        digest = hashlib.sha1(f"{self.repo_type}:{self.repo_id}".encode())
        for path in sorted(self.files):
            digest.update(b"\0" + path.encode() + b"\0" + self.files[path])
        return digest.hexdigest()

    def _index(self) -> dict[str, dict[str, bool]]:
        """Folder path ("" for the root) -> {child name: is a folder}, registering each folder once."""
        children: dict[str, dict[str, bool]] = {"": {}}
        for path in self.files:
            parent, _, name = path.rpartition("/")
            children.setdefault(parent, {})[name] = False
            while parent:
                grand, _, folder = parent.rpartition("/")
                siblings = children.setdefault(grand, {})
                if folder in siblings:
                    break
                siblings[folder] = True
                parent = grand
        return children

    @property
    def owner(self) -> str:
        return self.repo_id.split("/", 1)[0]

    def is_dir(self, path: str) -> bool:
        return path in self.children

    def oid(self, path: str) -> str:
        """The git blob sha of a file, or a stable tree id for a folder."""
        if path not in self._oids:
            if path in self.files:
                data = self.files[path]
                self._oids[path] = _hash(b"blob %d\0" % len(data), data)
            else:
                self._oids[path] = _hash("tree:", self.sha, ":", path)
        return self._oids[path]

    def listing(self, path: str, recursive: bool) -> list[tuple[str, bool]]:
        """(path, is_dir) under a folder: folders first, then files, by name; recursive is depth-first. Cached."""
        key = (path, recursive)
        if key not in self._listings:
            out: list[tuple[str, bool]] = []
            self._walk(path, recursive, out)
            self._listings[key] = out
        return self._listings[key]

    def _walk(self, folder: str, recursive: bool, out: list) -> None:
        kids = self.children.get(folder, {})
        prefix = folder + "/" if folder else ""
        for name in sorted(n for n, is_dir in kids.items() if is_dir):
            out.append((prefix + name, True))
            if recursive:
                self._walk(prefix + name, True, out)
        out.extend((prefix + name, False) for name in sorted(n for n, is_dir in kids.items() if not is_dir))

    def entry(self, path: str, is_dir: bool, expand: bool = False) -> dict:
        """A tree / paths-info entry, in the Hub's shape."""
        if is_dir:
            item = {"type": "directory", "oid": self.oid(path), "path": path}
        else:
            item = {"type": "file", "oid": self.oid(path), "size": len(self.files[path]), "path": path}
        if expand:
            item["lastCommit"] = {"id": self.sha, "title": "Upload folder", "date": self.prop("lastModified")}
        return item

    def prop(self, name: str, blobs: bool = False):
        """One property of the repository as the Hub's JSON spells it."""
        meta = self.meta
        subdomain = meta.get("subdomain") or re.sub(r"[^a-z0-9-]", "-", self.repo_id.lower().replace("/", "-"))
        match name:
            case "author":
                return meta.get("author", self.owner)
            case "sha":
                return self.sha
            case "private" | "disabled":
                return bool(meta.get(name, False))
            case "gated":
                return meta.get("gated", False) or False
            case "likes" | "downloads" | "downloadsAllTime" | "usedStorage":
                default = sum(len(b) for b in self.files.values()) if name == "usedStorage" else 0
                return int(meta.get(name, default))
            case "trendingScore":
                return meta.get("trendingScore", 0)
            case "createdAt" | "lastModified":
                return meta.get(name, DEFAULT_DATE)
            case "tags":
                return list(self.tags)
            case "cardData":
                return self.card
            case "siblings":
                if blobs:
                    return [{"rfilename": p, "size": len(b), "blobId": self.oid(p)} for p, b in self.files.items()]
                return [{"rfilename": p} for p in self.files]
            case "sdk":
                return meta.get("sdk", self.card.get("sdk"))
            case "runtime":
                runtime = {"stage": "RUNNING", "hardware": {"current": "cpu-basic", "requested": "cpu-basic"}}
                return {**runtime, **(meta.get("runtime") or {})}
            case "subdomain":
                return subdomain
            case "host":
                return meta.get("host", f"https://{subdomain}.hf.space")
            case "models" | "datasets":
                return list(meta.get(name, []))
            case _:
                return meta.get(name)

    def as_json(self, names: Iterable[str], blobs: bool = False) -> dict:
        out = {"_id": _hash("id:", self.repo_type, self.repo_id)[:24], "id": self.repo_id}
        out.update((name, self.prop(name, blobs)) for name in names)
        return out


def read_repo_folder(folder: Path) -> tuple[dict[str, bytes], dict]:
    """A repository folder's files and its `.hub.json` metadata (which is not a repository file)."""
    files: dict[str, bytes] = {}
    meta: dict = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if d not in (".git", "__pycache__")]
        rel = Path(dirpath).relative_to(folder).as_posix()
        for name in filenames:
            if name == ".DS_Store":
                continue
            data = (Path(dirpath) / name).read_bytes()
            if rel == "." and name == ".hub.json":
                meta = json.loads(data)
            else:
                files[name if rel == "." else f"{rel}/{name}"] = data
    return files, meta


# --------------------------------------------------------------------------------------------------- identities


@dataclass
class Identity:
    token: str
    name: str
    grants: frozenset[str] = frozenset()
    orgs: tuple[str, ...] = ()
    fullname: str = ""

    def owns(self, repo: Repo) -> bool:
        return repo.owner == self.name or repo.owner in self.orgs

    def granted(self, repo: Repo) -> bool:
        return repo.repo_id in self.grants or self.owns(repo)

    def whoami(self) -> dict:
        """The whoami-v2 payload for this token."""
        orgs = [
            {"type": "org", "id": _hash("org:", n)[:24], "name": n, "fullname": n, "email": None, "canPay": False,
             "avatarUrl": "", "periodEnd": None, "roleInOrg": "read"}
            for n in self.orgs
        ]  # fmt: skip
        return {
            "type": "user",
            "id": _hash("user:", self.name)[:24],
            "name": self.name,
            "fullname": self.fullname or self.name,
            "canPay": False,
            "isPro": False,
            "periodEnd": None,
            "avatarUrl": "",
            "orgs": orgs,
            "auth": {
                "type": "access_token",
                "accessToken": {"displayName": f"{self.name}-token", "role": "read", "createdAt": DEFAULT_DATE},
            },
        }


@dataclass
class _Fault:
    status: int
    times: int
    path_contains: str | None
    retry_after: float | None
    headers: dict


@dataclass
class _Slow:
    seconds: float
    path_contains: str | None
    times: int | None


@dataclass
class Hold:
    """Matching requests past the first `let_through` wait until `release()` (or the stand-in stops)."""

    path_contains: str
    let_through: int
    gate: threading.Event = field(default_factory=threading.Event)
    passed: int = 0
    waiting: int = 0

    def release(self) -> None:
        self.gate.set()


@dataclass
class _Request:
    """What one handler call is working on."""

    method: str
    target: str  # the request line's path and query, as sent
    path: str
    query: list[tuple[str, str]]
    body: bytes
    headers: dict = field(default_factory=dict)
    ident: Identity | None = None


# --------------------------------------------------------------------------------------------------- the server


class HubStandIn:
    """The stand-in Hub. `start()` it (or use it as a context manager), point huggingface_hub at `.url`."""

    def __init__(self, root: str | Path | None = None, *, list_page_size: int = 1000, tree_page_size: int = 1000):
        self.repos: dict[tuple[str, str], Repo] = {}
        self.tokens: dict[str, Identity] = {}
        self.list_page_size = list_page_size
        self.tree_page_size = tree_page_size
        self.tree_expand_page_size = 50
        self.latency = 0.0
        self.link_base: str | None = None  # where next-page Links point (default: this server), to test a hostile one
        self.requests: list[tuple[str, str]] = []  # (method, path with query)
        self.request_tokens: list[str | None] = []  # the bearer token of each logged request, None when anonymous
        self.scheduled_jobs: list[dict] = []  # the body of each scheduled Job created, with its namespace
        self.restarts: list[tuple[str, str]] = []  # (Space id, who) for each restart the Hub made
        self.space_visits: dict[str, int] = {}  # visits to each Space's host (serve_space_host)
        self.start_polls = 2  # runtime looks a starting Space takes to run
        self._space_hosts: list[ThreadingHTTPServer] = []
        self._faults: list[_Fault] = []
        self._slow: list[_Slow] = []
        self._holds: list[Hold] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        if root is not None:
            self.load_folder(root)

    # -- content ------------------------------------------------------------------------------------------------

    def load_folder(self, root: str | Path) -> None:
        """Add every repository under `<root>/datasets/<org>/<name>` and `<root>/spaces/<org>/<name>`."""
        for plural, repo_type in REPO_TYPES.items():
            base = Path(root) / plural
            for folder in sorted(base.glob("*/*")) if base.is_dir() else ():
                if folder.is_dir():
                    repo_id = f"{folder.parent.name}/{folder.name}"
                    self.repos[(repo_type, repo_id)] = Repo(repo_type, repo_id, *read_repo_folder(folder))

    def add_repo(self, repo_type: str, repo_id: str, files: dict[str, bytes | str], meta: dict | None = None) -> Repo:
        """Add (or replace) a repository built in code; str contents are stored as UTF-8."""
        if repo_type not in REPO_TYPES.values():
            raise ValueError(f"repo_type must be 'dataset' or 'space', not {repo_type!r}")
        data = {p.strip("/"): (c.encode() if isinstance(c, str) else bytes(c)) for p, c in files.items()}
        repo = Repo(repo_type, repo_id, data, meta)
        self.repos[(repo_type, repo_id)] = repo
        return repo

    def add_token(self, token: str, name: str, grants: Iterable[str] = (), orgs: Iterable[str] = ()) -> Identity:
        """A token whose whoami is `name`; it may read the private/gated repositories in `grants` and its orgs'."""
        ident = Identity(token, name, frozenset(grants), tuple(orgs))
        self.tokens[token] = ident
        return ident

    # -- faults and the log -------------------------------------------------------------------------------------

    def fail(
        self,
        status: int,
        times: int = 1,
        path_contains: str | None = None,
        retry_after: float | None = None,
        headers: dict | None = None,
    ) -> None:
        """Answer the next `times` matching requests with `status` (plus Retry-After and `headers` when given)."""
        with self._lock:
            self._faults.append(_Fault(status, times, path_contains, retry_after, dict(headers or {})))

    def cut(self, times: int = 1, path_contains: str | None = None) -> None:
        """Close the connection of the next `times` matching requests without answering (a cut connection)."""
        self.fail(CUT, times=times, path_contains=path_contains)

    def slow(self, seconds: float, path_contains: str | None = None, times: int | None = None) -> None:
        """Delay matching requests by `seconds` (all of them, or the next `times`)."""
        with self._lock:
            self._slow.append(_Slow(seconds, path_contains, times))

    def hold(self, path_contains: str, let_through: int = 0) -> Hold:
        """Let the next `let_through` requests whose path contains `path_contains` through, and keep the ones after
        them waiting until the returned Hold is released: work that fetches them is caught in the middle for as
        long as a test needs, however loaded the machine. Replaces an earlier hold on the same path (the requests
        it keeps go on waiting until it is released)."""
        rule = Hold(path_contains, let_through)
        with self._lock:
            self._holds = [h for h in self._holds if h.path_contains != path_contains] + [rule]
        return rule

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()
            self._slow.clear()
            self.latency = 0.0

    def count(self, method: str | None = None, contains: str | None = None) -> int:
        """How many logged requests match the method and contain the text in their path and query (raw or decoded)."""
        with self._lock:
            return sum(
                1
                for m, p in self.requests
                if (method is None or m == method.upper()) and (contains is None or _contains(p, contains))
            )

    def reset_log(self) -> None:
        with self._lock:
            self.requests.clear()
            self.request_tokens.clear()

    # -- lifecycle ----------------------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the Hub stand-in is not started")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "HubStandIn":
        if self._server is not None:
            return self
        self._stopping.clear()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.hub = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, name="hub-stand-in", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        self._stopping.set()  # wakes handlers sleeping on latency or slow rules
        for rule in self._holds:
            rule.release()
        for host in self._space_hosts:
            host.shutdown()
            host.server_close()
        self._space_hosts.clear()
        server.shutdown()
        server.server_close()
        server.close_connections()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> "HubStandIn":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- request handling ---------------------------------------------------------------------------------------

    def _before(self, req: _Request) -> tuple[int, dict, bytes] | None:
        """Log the request, apply latency and slow rules, and answer a queued failure if one matches."""
        full = req.target
        with self._lock:
            self.requests.append((req.method, full))
            self.request_tokens.append(_bearer(req.headers))
        if req.path == "/api/agent-harnesses":
            return None  # huggingface_hub's own bookkeeping: never delayed, never failed
        delay = self.latency
        fault = None
        with self._lock:
            for rule in list(self._slow):
                if rule.path_contains is None or _contains(full, rule.path_contains):
                    delay += rule.seconds
                    if rule.times is not None:
                        rule.times -= 1
                        if rule.times <= 0:
                            self._slow.remove(rule)
            for queued in self._faults:
                if queued.path_contains is None or _contains(full, queued.path_contains):
                    fault = queued
                    queued.times -= 1
                    if queued.times <= 0:
                        self._faults.remove(queued)
                    break
            held = next((h for h in self._holds if _contains(full, h.path_contains)), None)
            if held is not None:
                if held.passed < held.let_through:
                    held.passed, held = held.passed + 1, None
                else:
                    held.waiting += 1
        if held is not None and not self._stopping.is_set():
            held.gate.wait()
        if delay > 0:
            self._stopping.wait(delay)
        if fault is None:
            return None
        if fault.status == CUT:
            raise _Cut()
        headers = dict(fault.headers)
        if fault.retry_after is not None:
            headers["Retry-After"] = _number(fault.retry_after)
        return _json(fault.status, {"error": f"Injected failure {fault.status}"}, headers)

    def handle(self, req: _Request) -> tuple[int, dict, bytes]:
        answered = self._before(req)
        if answered is not None:
            return answered
        try:
            token = _bearer(req.headers)
            if token is not None and req.path != "/api/agent-harnesses":
                req.ident = self.tokens.get(token)
                if req.ident is None:
                    raise HubError(401, BAD_TOKEN, headers={"X-Error-Message": BAD_TOKEN})
            return self._route(req)
        except HubError as err:
            headers = dict(err.headers)
            if err.code:
                headers["X-Error-Code"] = err.code
            return _json(err.status, {"error": err.message}, headers)

    def _route(self, req: _Request) -> tuple[int, dict, bytes]:
        parts = req.path.split("/")  # raw segments: a %2F-encoded sub-path stays one segment
        method = req.method
        if method == "GET" and req.path in viewer.ROUTES:  # the dataset viewer, served from the same address
            return viewer.answer(self, req)
        if parts[:2] == ["", "api"] and method == "GET":
            if req.path == "/api/whoami-v2":
                return self._whoami(req)
            if req.path == "/api/agent-harnesses":
                return _json(200, {"standardEnvVars": [], "harnesses": {}})
            if len(parts) == 3 and parts[2] in REPO_TYPES:
                return self._list(req, REPO_TYPES[parts[2]])
        if len(parts) >= 5 and parts[:2] == ["", "api"] and parts[2] in REPO_TYPES:
            repo_type, repo_id, rest = REPO_TYPES[parts[2]], f"{unquote(parts[3])}/{unquote(parts[4])}", parts[5:]
            if method == "GET" and not rest:
                return self._info(req, repo_type, repo_id, "main")
            if repo_type == "space" and method == "GET" and rest == ["runtime"]:
                return self._runtime(req, repo_id)
            if repo_type == "space" and method == "POST" and rest == ["restart"]:
                return self._restart(req, repo_id)
            if method == "GET" and len(rest) == 2 and rest[0] == "revision":
                return self._info(req, repo_type, repo_id, unquote(rest[1]))
            if method == "GET" and len(rest) >= 2 and rest[0] == "tree":
                return self._tree(req, repo_type, repo_id, unquote(rest[1]), _sub_path(rest[2:]))
            if method == "POST" and len(rest) == 2 and rest[0] == "paths-info":
                return self._paths_info(req, repo_type, repo_id, unquote(rest[1]))
        if len(parts) >= 7 and parts[1] in REPO_TYPES and parts[4] == "resolve" and method in ("GET", "HEAD"):
            repo_id = f"{unquote(parts[2])}/{unquote(parts[3])}"
            return self._resolve(req, REPO_TYPES[parts[1]], repo_id, unquote(parts[5]), _sub_path(parts[6:]))
        if method == "POST" and len(parts) == 4 and parts[:3] == ["", "api", "scheduled-jobs"]:
            return self._create_scheduled_job(req, unquote(parts[3]))
        raise HubError(404, f"Sorry, we can't find the page you are looking for ({method} {req.path}).")

    # -- access -------------------------------------------------------------------------------------------------

    def _visible(self, repo: Repo, ident: Identity | None) -> bool:
        return not repo.prop("private") or (ident is not None and ident.granted(repo))

    def _repo(self, req: _Request, repo_type: str, repo_id: str, revision: str | None = None) -> Repo:
        repo = self.repos.get((repo_type, repo_id))
        if repo is None or not self._visible(repo, req.ident):
            raise HubError(404, f"Repository not found: {repo_type} {repo_id}.", "RepoNotFound")
        if revision is not None and revision not in ("main", repo.sha):
            raise HubError(404, f"Invalid rev id: {revision}", "RevisionNotFound")
        return repo

    # -- routes -------------------------------------------------------------------------------------------------

    def _whoami(self, req: _Request) -> tuple[int, dict, bytes]:
        if req.ident is None:
            raise HubError(401, BAD_TOKEN, headers={"X-Error-Message": BAD_TOKEN})
        return _json(200, req.ident.whoami())

    def _list(self, req: _Request, repo_type: str) -> tuple[int, dict, bytes]:
        params = _multi(req.query)
        expand = _expand(params, repo_type)
        sort = _first(params, "sort")
        if sort is not None and sort not in SORT_KEYS:
            raise HubError(400, f'"sort" must be one of {sorted(SORT_KEYS)}.')
        found = [
            repo
            for (kind, _), repo in list(self.repos.items())
            if kind == repo_type and self._visible(repo, req.ident) and _matches(repo, params)
        ]
        found.sort(key=lambda r: r.repo_id)
        if sort is not None:
            found.sort(key=lambda r: r.prop(sort) or 0, reverse=True)
        size = min(_int(_first(params, "limit"), self.list_page_size), self.list_page_size)
        if expand:
            names = expand
        else:
            names = list(LIST_DEFAULT[repo_type])
            if _first(params, "full") in ("true", "True", "1"):
                names += ["cardData", "siblings"]
        return self._page(req, found, size, lambda repo: repo.as_json(names))

    def _page(self, req: _Request, items: list, size: int, render) -> tuple[int, dict, bytes]:
        """One page of `items` from the request's cursor, with an absolute Link to the next page when more remain."""
        start = _cursor_offset(_first(_multi(req.query), "cursor"))
        page = items[start : start + max(size, 1)]
        headers = {}
        if start + len(page) < len(items):
            query = [(k, v) for k, v in req.query if k != "cursor"]
            query.append(("cursor", _cursor(start + len(page))))
            headers["Link"] = f'<{self.link_base or self.url}{req.path}?{urlencode(query)}>; rel="next"'
        return _json(200, [render(item) for item in page], headers)

    def _info(self, req: _Request, repo_type: str, repo_id: str, revision: str) -> tuple[int, dict, bytes]:
        repo = self._repo(req, repo_type, repo_id, revision)
        params = _multi(req.query)
        names = _expand(params, repo_type) or INFO_DEFAULT[repo_type]
        blobs = _first(params, "blobs") in ("true", "True", "1")
        return _json(200, repo.as_json(names, blobs=blobs))

    def _tree(self, req: _Request, repo_type: str, repo_id: str, revision: str, path: str):
        repo = self._repo(req, repo_type, repo_id, revision)
        if path and not repo.is_dir(path):
            raise HubError(404, f"Entry not found: {path}", "EntryNotFound", {"X-Repo-Commit": repo.sha})
        params = _multi(req.query)
        recursive = _first(params, "recursive") in ("true", "True", "1")
        expand = _first(params, "expand") in ("true", "True", "1")
        size = min(self.tree_page_size, self.tree_expand_page_size) if expand else self.tree_page_size
        listing = repo.listing(path, recursive)
        return self._page(req, listing, size, lambda item: repo.entry(item[0], item[1], expand))

    def _paths_info(self, req: _Request, repo_type: str, repo_id: str, revision: str):
        repo = self._repo(req, repo_type, repo_id, revision)
        if "json" in req.headers.get("content-type", ""):
            body = json.loads(req.body or b"{}")
            paths, expand = _as_list(body.get("paths")), bool(body.get("expand"))
        else:
            form = parse_qs(req.body.decode("utf-8"), keep_blank_values=True)
            paths, expand = form.get("paths", []), _first(form, "expand") in ("true", "True", "1")
        out = []
        for raw in paths:
            path = raw.strip("/")
            if path in repo.files:
                out.append(repo.entry(path, False, expand))
            elif path and repo.is_dir(path):
                out.append(repo.entry(path, True, expand))
        return _json(200, out)

    # -- Spaces: runtime, restart, and the visit that wakes a sleeping one (hub.md §1.6) -------------------------

    def _runtime(self, req: _Request, repo_id: str) -> tuple[int, dict, bytes]:
        """A Space's runtime; one that is starting runs after `start_polls` more looks (a stage state machine)."""
        repo = self._repo(req, "space", repo_id)
        with self._lock:
            runtime = repo.prop("runtime")
            if runtime["stage"] in ("APP_STARTING", "BUILDING", "RUNNING_APP_STARTING"):
                repo.meta["_polls"] = repo.meta.get("_polls", 0) + 1
                if repo.meta["_polls"] >= self.start_polls:
                    self._set_stage(repo, "RUNNING")
        return _json(200, repo.prop("runtime"))

    def _restart(self, req: _Request, repo_id: str) -> tuple[int, dict, bytes]:
        repo = self._repo(req, "space", repo_id)
        if req.ident is None:
            raise HubError(401, BAD_TOKEN, headers={"X-Error-Message": BAD_TOKEN})
        if not req.ident.owns(repo):
            raise HubError(403, f"You don't have the rights to restart the Space {repo_id}.")
        if repo.prop("sdk") == "static":
            raise HubError(400, "Static Spaces cannot be restarted.")
        with self._lock:
            self._set_stage(repo, "APP_STARTING")
            self.restarts.append((repo_id, req.ident.name))
        return _json(200, repo.prop("runtime"))

    def _set_stage(self, repo: Repo, stage: str) -> None:
        repo.meta["runtime"] = {**(repo.meta.get("runtime") or {}), "stage": stage}
        repo.meta["_polls"] = 0

    def serve_space_host(self, repo_id: str) -> str:
        """A loopback server standing for `<subdomain>.hf.space`: any visit wakes the Space (SLEEPING or STOPPED
        becomes APP_STARTING), as a visit to the real host does. Its base URL, for RLX_SPACE_HOSTS."""
        repo = self.repos[("space", repo_id)]
        hub = self

        class Host(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                with hub._lock:
                    hub.space_visits[repo_id] = hub.space_visits.get(repo_id, 0) + 1
                    if repo.prop("runtime")["stage"] in ("SLEEPING", "STOPPED"):
                        hub._set_stage(repo, "APP_STARTING")
                body = b"<html><body>Starting...</body></html>"
                self.send_response(503)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        server = ThreadingHTTPServer(("127.0.0.1", 0), Host)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True,
                         name=f"space-host-{repo_id}").start()
        self._space_hosts.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    def _create_scheduled_job(self, req: _Request, namespace: str) -> tuple[int, dict, bytes]:
        """Record the scheduled Job and answer a ScheduledJobInfo, as the Hub's Jobs API does."""
        if req.ident is None:
            raise HubError(401, BAD_TOKEN, headers={"X-Error-Message": BAD_TOKEN})
        if namespace != req.ident.name and namespace not in req.ident.orgs:
            raise HubError(403, f"You cannot create Jobs in the namespace {namespace}.")
        body = json.loads(req.body or b"{}")
        with self._lock:
            self.scheduled_jobs.append({"namespace": namespace, **body})
            job_id = _hash("scheduled-job:", namespace, str(len(self.scheduled_jobs)))[:24]
        owner = {"id": _hash("owner:", namespace)[:24], "name": namespace,
                 "type": "user" if namespace == req.ident.name else "org"}
        info = {"id": job_id, "owner": owner, "schedule": body.get("schedule"), "suspend": bool(body.get("suspend")),
                "concurrency": bool(body.get("concurrency")), "jobSpec": body.get("jobSpec") or {},
                "status": {"lastJob": None, "nextJobRunAt": "2025-01-01T01:00:00.000Z"}, "createdAt": DEFAULT_DATE}
        return _json(200, info)

    def _resolve(self, req: _Request, repo_type: str, repo_id: str, revision: str, path: str):
        repo = self._repo(req, repo_type, repo_id, revision)
        if repo.prop("gated") and not (req.ident is not None and req.ident.granted(repo)):
            status = 401 if req.ident is None else 403
            message = (
                f"Access to {repo_type} {repo_id} is restricted. You must have access to it and be authenticated "
                "to access it. Please log in."
            )
            raise HubError(status, message, "GatedRepo")
        commit = {"X-Repo-Commit": repo.sha}
        if path not in repo.files:
            raise HubError(404, "Entry not found", "EntryNotFound", commit)
        data = repo.files[path]
        headers = {
            **commit,
            "ETag": f'"{repo.oid(path)}"',
            "Accept-Ranges": "bytes",
            "Content-Type": mimetypes.guess_type(path)[0] or "application/octet-stream",
        }
        status, body = 200, data
        wanted = req.headers.get("range")
        if wanted:
            span = _byte_range(wanted, len(data))
            if span is None:
                return 416, {**headers, "Content-Range": f"bytes */{len(data)}"}, b""
            first, last = span
            status, body = 206, data[first : last + 1]
            headers["Content-Range"] = f"bytes {first}-{last}/{len(data)}"
        return status, headers, body


# --------------------------------------------------------------------------------------------------- helpers


def _json(status: int, payload, headers: dict | None = None) -> tuple[int, dict, bytes]:
    body = json.dumps(payload, default=str).encode()
    return status, {"Content-Type": "application/json; charset=utf-8", **(headers or {})}, body


def _bearer(headers: dict) -> str | None:
    value = headers.get("authorization", "")
    if value[:7].lower() != "bearer ":
        return None
    return value[7:].strip() or None


def _multi(pairs: list[tuple[str, str]]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for key, value in pairs:
        out.setdefault(key, []).append(value)
    return out


def _first(params: dict[str, list[str]], key: str) -> str | None:
    values = params.get(key)
    return values[0] if values else None


def _expand(params: dict[str, list[str]], repo_type: str) -> list[str]:
    """The `expand` properties asked for, refused with a 400 like the Hub's when one is unknown."""
    expand = list(dict.fromkeys(params.get("expand", [])))
    unknown = [e for e in expand if e not in EXPANDABLE[repo_type]]
    if unknown:
        raise HubError(400, f'"expand" must be one of {sorted(EXPANDABLE[repo_type])}, not {unknown}.')
    return expand


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        raise HubError(400, f"Expected an integer, got {value!r}.") from None


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"offset": offset}).encode()).decode().rstrip("=")


def _cursor_offset(cursor: str | None) -> int:
    if not cursor:
        return 0
    try:
        return int(json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))["offset"])
    except (ValueError, KeyError, TypeError):
        raise HubError(400, "Invalid cursor.") from None


def _contains(target: str, text: str) -> bool:
    """Whether a request target holds `text` as sent (`tasks%2Fa`) or decoded (`tasks/a`)."""
    return text in target or text in unquote(target)


def _sub_path(segments: list[str]) -> str:
    return "/".join(unquote(s) for s in segments).strip("/")


def _matches(repo: Repo, params: dict[str, list[str]]) -> bool:
    """The listing's filters: every `filter` tag (AND), `author`, every `search` substring, `gated`."""
    if any(tag not in repo.tags for tag in params.get("filter", [])):
        return False
    author = _first(params, "author")
    if author is not None and repo.owner.lower() != author.lower():
        return False
    if any(s.lower() not in repo.repo_id.lower() for s in params.get("search", [])):
        return False
    gated = _first(params, "gated")
    if gated is not None and bool(repo.prop("gated")) != (gated.lower() == "true"):
        return False
    return True


def _byte_range(header: str, total: int) -> tuple[int, int] | None:
    """(first, last) of a single `bytes=` range, clamped; None when unsatisfiable."""
    match = re.fullmatch(r"\s*bytes=(\d*)-(\d*)\s*", header)
    if not match or (not match.group(1) and not match.group(2)):
        return None
    if not match.group(1):  # suffix: the last N bytes
        count = int(match.group(2))
        return (max(total - count, 0), total - 1) if count and total else None
    first = int(match.group(1))
    last = min(int(match.group(2)), total - 1) if match.group(2) else total - 1
    return (first, last) if first <= last and first < total else None


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128
    hub: HubStandIn

    def __init__(self, *args, **kwargs):
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(*args, **kwargs)

    def close_connections(self) -> None:
        """Close kept-alive connections, so their handler threads end with the server."""
        with self.connections_lock:
            conns, self.connections = list(self.connections), set()
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()

    def handle_error(self, request, client_address) -> None:
        pass  # a client that hung up (timeouts are part of the tests) is not news


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Small answers on a kept-alive connection would otherwise wait ~40 ms for Nagle's algorithm: the injected
    # latency must be the only delay the stand-in adds.
    disable_nagle_algorithm = True
    server: _Server

    def setup(self) -> None:
        super().setup()
        with self.server.connections_lock:
            self.server.connections.add(self.connection)

    def finish(self) -> None:
        with self.server.connections_lock:
            self.server.connections.discard(self.connection)
        try:
            super().finish()
        except OSError:
            pass

    def log_message(self, format, *args) -> None:
        pass

    def _serve(self) -> None:
        split = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        req = _Request(
            method=self.command,
            target=self.path,
            path=split.path,
            query=parse_qsl(split.query, keep_blank_values=True),
            body=body,
            headers={k.lower(): v for k, v in self.headers.items()},
        )
        try:
            status, headers, payload = self.server.hub.handle(req)
        except _Cut:
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = _serve


__all__ = ["HubError", "HubStandIn", "Identity", "Repo", "front_matter", "read_repo_folder"]
