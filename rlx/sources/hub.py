"""HubSource: environments read from the Hugging Face Hub (or anything speaking its API) with huggingface_hub.

Every call carries the visitor's token, or `token=False` for an anonymous visitor: never `None`, which would let
huggingface_hub send the server's own token on that visitor's behalf.

Requests go through huggingface_hub's shared client (`get_session`), its headers (`build_hf_headers`), its URL
builder (`hf_hub_url`) and its error decoding (`hf_raise_for_status`), but this module sends them itself: `HfApi`'s
listing, tree and paths-info methods take no timeout (the shared client has none) and retry internally up to five
times with waits of up to 8 s, or Retry-After + 1 s, which a web request cannot afford. Here every request has a
connect and a read timeout, and 429/5xx answers are retried a bounded number of times within a bounded wait.

Plain blocking calls: under gevent the monkey-patched sockets and sleeps make them cooperative.
"""

from __future__ import annotations

import email.utils
import time
from contextlib import contextmanager
from typing import Callable, Iterator, Sequence
from urllib.parse import quote, urlsplit

import httpx2
from huggingface_hub import constants, hf_hub_url
from huggingface_hub.errors import (
    DisabledRepoError,
    GatedRepoError,
    HfHubHTTPError,
    RemoteEntryNotFoundError,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)
from huggingface_hub.utils import build_hf_headers, get_session, hf_raise_for_status, parse_ratelimit_headers

from rlx.sources.base import FileEntry, RepoRecord, RepoType
from rlx.sources.errors import (AccessDenied, EntryNotFound, RepoNotFound, RevisionNotFound, SourceError, TooLarge,
                                Unavailable)
from rlx.sources.names import REPO_ID

# Answers that mean "the Hub is down, slow or rate-limiting us", never "this file is wrong": every 5xx (Cloudflare's
# 520-530 included), 429 and 408. They are retried, then raised as Unavailable, so a build fails instead of
# recording a per-file error.
RETRY_4XX = frozenset({408, 429})
# Failures worth another attempt: the request never got going, or the connection broke (a kept-alive one went stale).
RETRY_ERRORS = (httpx2.NetworkError, httpx2.RemoteProtocolError, httpx2.ConnectTimeout, httpx2.PoolTimeout)
PATHS_PER_CALL = 500  # huggingface_hub does not chunk paths-info; the Hub documents no maximum
MAX_PAGES = 10_000  # a bound on any paginated listing (10 million entries at the Hub's 1,000 per page)
DATASET_FIELDS = ("author", "sha", "tags", "likes", "downloads", "trendingScore", "createdAt", "lastModified",
                  "private", "gated", "cardData", "description")  # fmt: skip
SPACE_FIELDS = ("author", "sha", "tags", "likes", "trendingScore", "createdAt", "lastModified", "private",
                "cardData", "sdk", "runtime", "subdomain")  # fmt: skip


class HubSource:
    """The Source protocol over the Hub's HTTP API at `endpoint` (default: huggingface_hub's HF_ENDPOINT)."""

    kind = "hub"
    viewer = None  # the dataset viewer client, set by open_source from HF_VIEWER_URL

    def __init__(
        self,
        endpoint: str | None = None,
        *,
        connect_timeout: float = 10.0,
        read_timeout: float = 60.0,
        max_attempts: int = 4,
        backoff: float = 1.0,
        max_wait: float = 20.0,
        default_retry_after: int = 30,
        paths_per_call: int = PATHS_PER_CALL,
        sleep: Callable[[float], None] | None = None,
    ):
        self.endpoint = (endpoint or constants.ENDPOINT).rstrip("/")
        self.timeout = httpx2.Timeout(read_timeout, connect=connect_timeout, pool=connect_timeout)
        self.max_attempts = max(1, max_attempts)
        self.backoff = backoff  # first wait; doubles on each retry unless the Hub says Retry-After
        self.max_wait = max_wait  # total seconds one call may spend waiting between attempts
        self.default_retry_after = default_retry_after
        self.paths_per_call = paths_per_call
        self._sleep = sleep or (lambda seconds: time.sleep(seconds))  # looked up late: gevent may patch it

    def describe(self) -> str:
        return f"the Hub at {self.endpoint}"

    def check(self) -> None:
        what = f"a test listing at {self.endpoint}"
        url = f"{self.endpoint}/api/datasets"
        with self._send("GET", url, what, None, params={"limit": 1}, attempts=1) as response:
            if not isinstance(_json(response, what), list):
                raise SourceError(f"{self.describe()} answered the dataset listing with something else than a list.")

    # -- listing ------------------------------------------------------------------------------------------------

    def list_repos(self, repo_type: RepoType, tags: Sequence[str], token: str | None = None) -> list[RepoRecord]:
        fields = SPACE_FIELDS if repo_type == "space" else DATASET_FIELDS
        merged: dict[str, RepoRecord] = {}
        # The Hub ANDs repeated filters: one query per tag, merged here. No tags: one unfiltered query, as
        # FolderSource lists everything then (on huggingface.co that is hundreds of pages: pass tags).
        for tag in dict.fromkeys(tags) if tags else [None]:
            params = [("filter", tag)] if tag else []
            params += [("sort", "trendingScore"), *(("expand", f) for f in fields)]
            url = f"{self.endpoint}/api/{repo_type}s"
            what = f"the {repo_type} listing" + (f" for tag {tag!r}" if tag else "")
            for item in self._pages(url, what, token, params):
                if isinstance(item, dict) and item.get("id"):
                    merged.setdefault(item["id"], _record(repo_type, item))
        return sorted(merged.values(), key=lambda r: (-r.trending_score, -r.likes, r.id))

    def list_by_author(self, repo_type: RepoType, author: str, token: str | None, limit: int = 200
                       ) -> list[RepoRecord]:
        """One account's repositories, newest first; with that account's token, its private ones too."""
        fields = SPACE_FIELDS if repo_type == "space" else DATASET_FIELDS
        params = [("author", author), ("sort", "lastModified"), ("limit", str(min(limit, 1000))),
                  *(("expand", f) for f in fields)]
        found: list[RepoRecord] = []
        for item in self._pages(f"{self.endpoint}/api/{repo_type}s", f"{author}'s {repo_type}s", token, params):
            if isinstance(item, dict) and item.get("id"):
                found.append(_record(repo_type, item))
            if len(found) >= limit:
                break
        return found

    def repo_info(
        self, repo_type: RepoType, repo_id: str, revision: str | None = None, token: str | None = None
    ) -> RepoRecord:
        url = f"{self._repo_api(repo_type, repo_id)}"
        if revision is not None:
            url += f"/revision/{quote(revision, safe='')}"
        # Datasets: ask only for the fields a record needs (a 5,000-task repository's file list is megabytes).
        # Spaces: the full answer, the only one carrying `host`; a Space's file list is small.
        params = [("expand", f) for f in DATASET_FIELDS] if repo_type == "dataset" else None
        what = _label(repo_type, repo_id, revision=revision)
        with self._send("GET", url, what, token, params=params, repo=(repo_type, repo_id)) as response:
            data = _json(response, what)
        if not isinstance(data, dict):
            raise SourceError(f"The Hub's answer about {what} is not an object.")
        return _record(repo_type, {"id": repo_id, **data})

    # -- files --------------------------------------------------------------------------------------------------

    def list_tree(
        self,
        repo_type: RepoType,
        repo_id: str,
        path: str = "",
        recursive: bool = False,
        revision: str | None = None,
        token: str | None = None,
    ) -> Iterator[FileEntry]:
        path = path.strip("/")
        url = f"{self._repo_api(repo_type, repo_id)}/tree/{_rev(revision)}"
        if path:
            url += "/" + quote(path, safe="")  # as huggingface_hub sends it: one %2F-encoded segment
        params = {"recursive": "true" if recursive else "false", "expand": "false"}
        what = _label(repo_type, repo_id, path or None, revision)
        for item in self._pages(url, what, token, params, repo=(repo_type, repo_id)):
            yield _entry(item)

    def paths_info(
        self,
        repo_type: RepoType,
        repo_id: str,
        paths: Sequence[str],
        revision: str | None = None,
        token: str | None = None,
    ) -> list[FileEntry]:
        url = f"{self._repo_api(repo_type, repo_id)}/paths-info/{_rev(revision)}"
        what = _label(repo_type, repo_id, revision=revision)
        wanted = list(paths)
        found: list[FileEntry] = []
        for start in range(0, len(wanted), self.paths_per_call):
            data = {"paths": wanted[start : start + self.paths_per_call], "expand": "false"}
            with self._send("POST", url, what, token, data=data, repo=(repo_type, repo_id)) as response:
                items = _json(response, what)
            if not isinstance(items, list):
                raise SourceError(f"The Hub's paths-info answer for {what} is not a list.")
            found.extend(_entry(item) for item in items)
        return found

    def read_file(
        self,
        repo_type: RepoType,
        repo_id: str,
        path: str,
        revision: str | None = None,
        token: str | None = None,
        max_bytes: int = 8 * 1024 * 1024,
    ) -> bytes:
        path = path.strip("/")
        rev = revision or constants.DEFAULT_REVISION
        self._repo_api(repo_type, repo_id)  # validates the id
        url = hf_hub_url(repo_id, path, repo_type=repo_type, revision=rev, endpoint=self.endpoint)
        what = _label(repo_type, repo_id, path, revision)
        # Streamed into memory, never through huggingface_hub's disk cache: private bytes stay off the disk.
        with self._send("GET", url, what, token, stream=True, repo=(repo_type, repo_id)) as response:
            declared = response.headers.get("content-length")
            if declared and declared.isdigit() and int(declared) > max_bytes:
                raise TooLarge(f"{_cap(what)} is {int(declared):,} bytes, over the {max_bytes:,}-byte limit.")
            chunks, size = [], 0
            try:
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > max_bytes:
                        raise TooLarge(f"{_cap(what)} is over the {max_bytes:,}-byte limit.")
                    chunks.append(chunk)
            except httpx2.TransportError as err:
                raise Unavailable(f"The Hub stopped sending {what} ({_reason(err)}); try again shortly.") from err
        return b"".join(chunks)

    # -- Spaces' runtime ----------------------------------------------------------------------------------------

    def space_runtime(self, repo_id: str, token: str | None = None) -> dict:
        """The Space's runtime as the Hub reports it: {stage, hardware: {current, requested}, gcTimeout, ...}."""
        url = f"{self._repo_api('space', repo_id)}/runtime"
        what = f"the runtime of the Space {repo_id}"
        with self._send("GET", url, what, token, repo=("space", repo_id), attempts=1) as response:
            data = _json(response, what)
        if not isinstance(data, dict) or not isinstance(data.get("stage"), str):
            raise SourceError(f"The Hub described {what} without a stage.")
        return data

    def restart_space(self, repo_id: str, token: str) -> dict:
        """Restart the Space with the visitor's own token (the Hub answers 403 unless they may write to it);
        the new runtime."""
        url = f"{self._repo_api('space', repo_id)}/restart"
        what = f"a restart of the Space {repo_id}"
        with self._send("POST", url, what, token, repo=("space", repo_id), attempts=1) as response:
            data = _json(response, what)
        return data if isinstance(data, dict) else {}

    # -- transport ----------------------------------------------------------------------------------------------

    def _repo_api(self, repo_type: RepoType, repo_id: str) -> str:
        if not REPO_ID.match(repo_id or ""):  # it becomes part of a URL path: nothing else may ride along
            raise RepoNotFound(f"{repo_id!r} is not a repository id (expected org/name).")
        return f"{self.endpoint}/api/{repo_type}s/{repo_id}"

    def _is_ours(self, url: str) -> bool:
        """Whether `url` is on the configured Hub: same scheme, host and port."""
        try:
            theirs, ours = urlsplit(url), urlsplit(self.endpoint)
            return (theirs.scheme, theirs.hostname, theirs.port) == (ours.scheme, ours.hostname, ours.port)
        except ValueError:
            return False

    def _pages(self, url: str, what: str, token, params, repo=None) -> Iterator:
        """The items of a paginated listing, following the Link header's next URL (which carries every param)."""
        next_url: str | None = url
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            if next_url is None:
                return
            with self._send("GET", next_url, what, token, params=params, repo=repo) as response:
                items = _json(response, what)
                following = response.links.get("next", {}).get("url")
            if following is not None and not self._is_ours(following):
                # Our headers (a visitor's token, once they sign in) go only to the Hub we were configured with.
                raise SourceError(f"The Hub's next-page link for {what} points to another host; not followed.")
            if not isinstance(items, list):
                raise SourceError(f"The Hub's answer for {what} is not a list.")
            yield from items
            params = None
            seen.add(next_url)
            next_url = following if following not in seen else None
        raise SourceError(f"The Hub's listing of {what} ran past {MAX_PAGES:,} pages.")

    @contextmanager
    def _send(self, method: str, url: str, what: str, token, *, params=None, data=None, stream=False, repo=None,
              attempts: int | None = None) -> Iterator[httpx2.Response]:  # fmt: skip
        """One request with timeouts and bounded retries; yields the successful response, raises SourceErrors."""
        headers = build_hf_headers(token=token or False)
        client = get_session()
        waited = 0.0
        attempts = attempts or self.max_attempts
        for attempt in range(1, attempts + 1):
            request = client.build_request(
                method, url, params=params, data=data, headers=headers, timeout=self.timeout
            )
            try:
                response = client.send(request, stream=stream)
            except RETRY_ERRORS as err:
                failure, wait, retry_after = err, None, self.default_retry_after
            except httpx2.TimeoutException as err:
                # A read that outlived its timeout is not retried: the visitor has already waited that long.
                message = f"The Hub did not answer in time for {what} ({_reason(err)}); try again shortly."
                raise Unavailable(message, retry_after=self.default_retry_after) from err
            except httpx2.RequestError as err:
                raise _unavailable(err, what, self.default_retry_after) from err
            else:
                if not _is_outage(response.status_code):
                    try:
                        if response.status_code >= 400:
                            response.read()  # error bodies are small; hf_raise_for_status reads the message
                            _raise_for(response, what, repo)
                        yield response
                    finally:
                        response.close()
                    return
                response.close()
                wait = _retry_after(response)
                failure, retry_after = response, round(wait) if wait is not None else self.default_retry_after
            delay = wait if wait is not None else self.backoff * 2 ** (attempt - 1)
            if attempt == attempts or waited + delay > self.max_wait:
                raise _unavailable(failure, what, max(1, retry_after))
            self._sleep(delay)
            waited += delay


# --------------------------------------------------------------------------------------------------- helpers


def _is_outage(status: int) -> bool:
    return status >= 500 or status in RETRY_4XX


def _rev(revision: str | None) -> str:
    return quote(revision or constants.DEFAULT_REVISION, safe="")


def _label(repo_type: str, repo_id: str, path: str | None = None, revision: str | None = None) -> str:
    """How messages name what was asked: 'the file x of the dataset org/name at revision r'."""
    text = f"the {repo_type} {repo_id}"
    if path:
        text = f"{path!r} in {text}"
    if revision:
        text += f" at revision {revision!r}"
    return text


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _reason(err: Exception) -> str:
    return str(err) or type(err).__name__


def _json(response: httpx2.Response, what: str):
    try:
        return response.json()
    except ValueError as err:
        raise SourceError(f"The Hub's answer for {what} is not JSON.") from err


def _retry_after(response: httpx2.Response) -> float | None:
    """Seconds the Hub asks us to wait: its RateLimit reset on an exhausted 429, else Retry-After; or None."""
    limit = parse_ratelimit_headers(response.headers) if response.status_code == 429 else None
    if limit is not None and limit.remaining == 0:
        return float(limit.reset_in_seconds)
    value = (response.headers.get("retry-after") or "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _unavailable(failure, what: str, retry_after: int) -> Unavailable:
    if isinstance(failure, httpx2.Response):
        message = f"The Hub answered {failure.status_code} for {what}; try again shortly."
    else:
        message = f"The Hub could not be reached for {what} ({_reason(failure)}); try again shortly."
    return Unavailable(message, retry_after=retry_after)


def _raise_for(response: httpx2.Response, what: str, repo) -> None:
    """Turn an error answer into the source error a view understands (huggingface_hub decodes X-Error-Code)."""
    subject = _label(*repo) if repo else what
    try:
        hf_raise_for_status(response)
    except GatedRepoError as err:  # before RepositoryNotFoundError: it is a subclass
        raise AccessDenied(f"{_cap(subject)} is gated and this visitor's token has no access to its files.") from err
    except RepositoryNotFoundError as err:
        raise RepoNotFound(f"{_cap(subject)} does not exist on the Hub, or is private to others.") from err
    except RevisionNotFoundError as err:
        raise RevisionNotFound(f"{_cap(what)} does not exist: the Hub knows no such revision.") from err
    except RemoteEntryNotFoundError as err:
        raise EntryNotFound(f"{_cap(what)} does not exist on the Hub.") from err
    except DisabledRepoError as err:
        raise RepoNotFound(f"{_cap(subject)} has been disabled on the Hub.") from err
    except HfHubHTTPError as err:
        status = response.status_code
        if status in (401, 403):
            raise AccessDenied(f"The Hub refused this visitor's token for {what} ({status}).") from err
        if status == 404 and repo:
            raise RepoNotFound(f"{_cap(subject)} does not exist on the Hub, or is private to others.") from err
        raise SourceError(f"The Hub answered {status} for {what}: {err.server_message or 'no reason given'}.") from err
    raise SourceError(f"The Hub answered {response.status_code} for {what}.")


def _record(repo_type: RepoType, data: dict) -> RepoRecord:
    """A RepoRecord from the Hub's JSON for one repository (listing or info; absent keys take defaults)."""
    runtime = data.get("runtime") if isinstance(data.get("runtime"), dict) else {}
    card = dict(data.get("cardData")) if isinstance(data.get("cardData"), dict) else {}
    if isinstance(data.get("description"), str) and not card.get("description"):
        card["description"] = data["description"]  # the Hub's summary of the card's text
    subdomain = data.get("subdomain")
    host = data.get("host") or (f"https://{subdomain}.hf.space" if repo_type == "space" and subdomain else None)
    try:
        return RepoRecord(
            id=data["id"],
            repo_type=repo_type,
            sha=data.get("sha"),
            tags=tuple(str(t) for t in data.get("tags") or ()),
            likes=int(data.get("likes") or 0),
            downloads=int(data.get("downloads") or 0),
            trending_score=float(data.get("trendingScore") or 0.0),
            created_at=data.get("createdAt"),
            last_modified=data.get("lastModified"),
            private=bool(data.get("private")),
            gated=data.get("gated") not in (None, False, "false", "False"),
            card=card,
            sdk=data.get("sdk"),
            stage=runtime.get("stage"),
            host=host,
        )
    except (KeyError, TypeError, ValueError) as err:
        raise SourceError(f"The Hub described {data.get('id', 'a repository')!r} in a shape we cannot read.") from err


def _entry(item: dict) -> FileEntry:
    try:
        if item["type"] == "directory":
            return FileEntry(path=item["path"], type="directory", oid=item.get("oid"))
        return FileEntry(path=item["path"], type="file", size=int(item.get("size") or 0), oid=item.get("oid"))
    except (KeyError, TypeError) as err:
        raise SourceError(f"The Hub sent a file entry without a path or type: {item!r:.200}.") from err
