"""The one way our server calls a Space: its own host only, no redirects followed, a timeout and a size cap on
every call, and each failure turned into a LiveError whose message a page can show as it is.

Plain blocking calls: under gevent the patched sockets make them cooperative. A read timeout alone would let a
server that drips one byte a second hold a request for ever, so every call also has an overall deadline.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from urllib.parse import urlparse

import httpx2

from rlx.live.errors import LiveError, SpaceRefused

CONNECT_TIMEOUT_S = 4.0
READ_TIMEOUT_S = 6.0
CALL_DEADLINE_S = 10.0  # one call, from sending to the last byte
MAX_BYTES = 2 * 1024 * 1024  # what one answer may weigh; an OpenAPI document of a big app fits easily
USER_AGENT = "hf-rl-explorer (+live check)"


@dataclass
class Answer:
    status: int
    content_type: str
    body: bytes
    location: str | None = None  # a redirect's target, as sent (never followed)
    cookies: dict | None = None  # what its Set-Cookie headers set (for a caller that keeps a jar)

    def json(self, what: str):
        try:
            return json.loads(self.body)
        except ValueError:
            raise LiveError(f"{what} answered something that is not JSON.", "not_json", self.status) from None


class SpaceClient:
    """Calls to one Space's server at `base_url` (from rlx.live.space_hosts). Use as a context manager, or close()."""

    def __init__(self, base_url: str, *, connect_timeout: float | None = None, read_timeout: float | None = None,
                 deadline: float | None = None, max_bytes: int | None = None):
        connect_timeout = connect_timeout or CONNECT_TIMEOUT_S  # module defaults read per call: tests shorten them
        read_timeout = read_timeout or READ_TIMEOUT_S
        deadline = deadline or CALL_DEADLINE_S
        max_bytes = max_bytes or MAX_BYTES
        parsed = urlparse(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc or parsed.path.strip("/"):
            raise SpaceRefused(f"{base_url!r} is not the address of a Space.")
        self.base_url = f"{parsed.scheme}://{parsed.netloc}"
        self.netloc = parsed.netloc
        self.deadline = deadline
        self.max_bytes = max_bytes
        self._http = httpx2.Client(
            timeout=httpx2.Timeout(read_timeout, connect=connect_timeout, pool=connect_timeout),
            follow_redirects=False, trust_env=False, headers={"User-Agent": USER_AGENT},
        )

    def __enter__(self) -> "SpaceClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def url(self, path: str) -> str:
        """The full URL of `path` on this Space; SpaceRefused when the path would reach another host."""
        text = str(path or "/")
        if (not text.startswith("/") or text.startswith("//") or "\\" in text or "@" in text
                or any(ord(c) < 33 or ord(c) == 127 for c in text)):
            raise SpaceRefused(f"{text[:80]!r} is not a path on the Space's own host.")
        if any(part == ".." for part in text.split("?", 1)[0].split("/")):
            raise SpaceRefused(f"{text[:80]!r} is not a path on the Space's own host.")
        full = self.base_url + text
        if urlparse(full).netloc != self.netloc:
            raise SpaceRefused(f"{text[:80]!r} is not a path on the Space's own host.")
        return full

    def request(self, method: str, path: str, body=None, what: str | None = None,
                same_host_redirects: bool = False, cookies: dict | None = None) -> Answer:
        """One call. Any answer with a status comes back (the caller judges it), except redirects: those raise,
        naming where they pointed (with `same_host_redirects`, one to a path on this host comes back as an
        Answer carrying `location`, still not followed). No answer in time, too big, or no connection:
        LiveError."""
        what = what or f"{method} {path}"
        url = self.url(path)
        started = time.monotonic()
        kwargs = {"json": body} if body is not None else {}
        if cookies:  # a session's own jar, kept by the caller (never this client's: it is shared by nobody)
            kwargs["headers"] = {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())}
        try:
            with self._http.stream(method, url, **kwargs) as response:
                if 300 <= response.status_code < 400:
                    target = response.headers.get("location", "")
                    if same_host_redirects and self.same_host_path(target):
                        return Answer(response.status_code, "", b"", location=self.same_host_path(target))
                    raise LiveError(f"{what} redirected to {_short(target) or 'nowhere'}; redirects are not "
                                    "followed.", "redirect", response.status_code)
                declared = response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > self.max_bytes:
                    raise _too_large(what, self.max_bytes)
                chunks, size = [], 0
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > self.max_bytes:
                        raise _too_large(what, self.max_bytes)
                    if time.monotonic() - started > self.deadline:
                        raise LiveError(f"{what} took longer than {self.deadline:g} s to answer.", "timeout")
                    chunks.append(chunk)
                return Answer(response.status_code, response.headers.get("content-type", ""), b"".join(chunks),
                              cookies=dict(response.cookies) or None)
        except httpx2.TimeoutException:
            raise LiveError(f"{what} did not answer within {self.deadline:g} s.", "timeout") from None
        except (httpx2.ConnectError, httpx2.NetworkError, httpx2.RemoteProtocolError) as exc:
            raise LiveError(f"{what} could not be reached: {_plain_reason(exc)}.", "unreachable") from None
        except httpx2.HTTPError as exc:
            raise LiveError(f"{what} failed ({_short(str(exc)) or type(exc).__name__}).", "unreachable") from None

    def same_host_path(self, target: str) -> str | None:
        """`target` (a Location header) as a path on this host, or None when it points anywhere else."""
        parsed = urlparse(target or "")
        if parsed.scheme and (parsed.scheme not in ("http", "https") or parsed.netloc != self.netloc):
            return None
        if not parsed.scheme and parsed.netloc:
            return None
        path = parsed.path or "/"
        if not path.startswith("/"):
            return None
        try:
            self.url(path)
        except SpaceRefused:
            return None
        return path

    def get_json(self, path: str, what: str | None = None):
        """GET a JSON document; a 4xx/5xx answer raises LiveError carrying the status."""
        return self._json("GET", path, None, what)

    def post_json(self, path: str, body, what: str | None = None):
        return self._json("POST", path, body, what)

    def _json(self, method: str, path: str, body, what: str | None):
        what = what or f"{method} {path}"
        answer = self.request(method, path, body, what)
        if answer.status >= 400:
            raise LiveError(f"{what} answered HTTP {answer.status}{_detail(answer)}.", "status", answer.status)
        return answer.json(what)


def _too_large(what: str, limit: int) -> LiveError:
    return LiveError(f"{what} sent more than {limit // (1024 * 1024)} MB; the rest was not read.", "too_large")


# What a connection failure means, in words: an errno and a resolver's message say it only to a programmer.
_REASONS = (("Name or service not known", "its address does not resolve from here"),
            ("Temporary failure in name resolution", "its address does not resolve from here"),
            ("nodename nor servname", "its address does not resolve from here"),
            ("Connection refused", "nothing answers at its address"),
            ("Network is unreachable", "this machine has no route to it"),
            ("No route to host", "this machine has no route to it"),
            ("Connection reset", "the connection was cut"),
            ("certificate", "its certificate was refused"))


def _plain_reason(exc: Exception) -> str:
    text = str(exc)
    return next((words for needle, words in _REASONS if needle in text), "the connection failed")


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _detail(answer: Answer) -> str:
    """A server's own error sentence (FastAPI's `detail`), or its validation errors' field messages (a 422's
    `detail` list), when it sent them."""
    try:
        detail = json.loads(answer.body).get("detail")
    except (ValueError, AttributeError):
        return ""
    if isinstance(detail, list):
        pairs = [f"{'.'.join(str(p) for p in d.get('loc') or [] if p != 'body') or 'the body'}: {d.get('msg')}"
                 for d in detail[:5] if isinstance(d, dict) and d.get("msg")]
        return f" ({_short('; '.join(pairs), 300)})" if pairs else ""
    return f" ({_short(detail, 120)})" if isinstance(detail, str) and detail else ""
