"""One Config, read from the environment. Every variable is declared once in SETTINGS, with its default and a
sentence; docs/OPERATIONS.md documents each of them (a test keeps the two in step)."""

from __future__ import annotations

import ipaddress
import os
import re
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse


class ConfigError(Exception):
    """A setting is unusable; the message is one sentence meant for the person starting the app."""


@dataclass(frozen=True)
class Setting:
    name: str
    default: str | None
    doc: str


DEFAULT_SCOPES = "openid profile read-repos gated-repos read-memberships inference-api jobs"

SETTINGS = [
    Setting("STORAGE_DIR", "./data", "Where indexes, packs, snapshots, run records, the admin settings file and "
            "the embedded Redis live; created when missing."),
    Setting("RLX_CACHE_DIR", None, "Local disk for copies of the snapshot and other caches "
            "(default: STORAGE_DIR/cache)."),
    Setting("REDIS_URL", None, "The Redis that queues jobs and holds shared state (redis:// or unix://). When "
            "absent, `rlx` starts a private redis-server on a unix socket under STORAGE_DIR and stops it on exit."),
    Setting("HF_ENDPOINT", "https://huggingface.co", "The Hub that `RLX_SOURCE=hub` reads."),
    Setting("HF_VIEWER_URL", "https://datasets-server.huggingface.co", "The dataset viewer that reads rows "
            "datasets when `RLX_SOURCE=hub` (a folder source reads its data files directly)."),
    Setting("RLX_SOURCE", None, "Where environments come from: a folder laid out like the Hub "
            "(datasets/<org>/<name>, spaces/<org>/<name>), or `hub`. Default: the bundled examples/ folder."),
    Setting("SESSION_SECRET", None, "The key that signs session cookies. When absent, one is generated once "
            "and kept in STORAGE_DIR/session-secret."),
    Setting("RLX_PUBLIC_URL", None, "The address visitors reach this app at (https://explorer.example.org): the "
            "MCP snippets, canonical URLs, sharing tags and the sitemap use it, and MCP requests must name its "
            "host. Default: each request's own URL, with MCP open to loopback and IP-address hosts only."),
    Setting("RLX_ADMIN_URL", None, "The address the admin app (`rlx admin`) is reached at when it is served on "
            "another origin than the explorer (https://admin.example.org): its writes must come from that origin and "
            "its host is trusted. Default: RLX_PUBLIC_URL."),
    Setting("RLX_MODEL_DNS", None, "The DNS server (ip or ip:port) that resolves the names of model endpoints "
            "visitors bring, at the form's check and again at every connection the worker makes to them. "
            "Default: the system's resolver."),
    Setting("RLX_SPACE_HOSTS", None, "Spaces served on this machine instead of at <subdomain>.hf.space, as "
            "`subdomain=http://127.0.0.1:port` pairs separated by commas; loopback addresses only (tests and "
            "`rlx demo`, which sets it for the bundled OpenEnv example)."),
    Setting("OPENID_PROVIDER_URL", None, "The OpenID provider for \"Sign in with Hugging Face\" "
            "(https://huggingface.co; a Space with `hf_oauth: true` gets it). Unset: only a pasted token signs in."),
    Setting("OAUTH_CLIENT_ID", None, "The OAuth app's client id (a Space with `hf_oauth: true` gets it)."),
    Setting("OAUTH_CLIENT_SECRET", None, "The OAuth app's client secret (a Space with `hf_oauth: true` gets it)."),
    Setting("OAUTH_SCOPES", DEFAULT_SCOPES, "The scopes sign-in asks for: private and gated repositories, "
            "memberships (for the admin org check), inference and jobs."),
    Setting("ADMIN_ORG", None, "The Hub organization whose members may use the admin app (`rlx admin`). "
            "Unset: the admin app lets nobody in."),
    Setting("RLX_TRUSTED_HOSTS", None, "Comma-separated host names this app answers to (a request naming any "
            "other Host gets 400, a guard against DNS rebinding and forged links). Loopback names, IP addresses "
            "and RLX_PUBLIC_URL's host are always trusted; `.example.org` trusts every subdomain too."),
    Setting("RLX_PROXY_HOPS", "0", "How many proxies in front of the app append to X-Forwarded-For and set "
            "X-Forwarded-Proto (0 to 5). 0: those headers are ignored, and rate limits count the connecting "
            "address; set it only when every request passes through that many proxies you run."),
    Setting("METRICS_TOKEN", None, "The bearer token a Prometheus scrape of /metrics must send "
            "(`Authorization: Bearer ...`). When absent, /metrics answers loopback addresses only."),
    Setting("RLX_SNAPSHOT_CHECK_S", "60", "Seconds between a web process's looks at the snapshot pointer "
            "(1 to 3600): how soon a newly published snapshot is served."),
    Setting("RLX_WORKER_HEARTBEAT_S", "2", "Seconds (1 to 60) between an RQ worker's heartbeats; every worker and "
            "web process of one deployment must agree."),
    Setting("RLX_WORKER_LAPSE_S", "60", "Seconds (5 to 3600) past its heartbeat interval a silent RQ worker is still "
            "taken for alive (busy, or its machine overloaded); one whose process is gone from the machine that "
            "looks is given up after five missed heartbeats."),
    Setting("RLX_HF_SANDBOX_START_TIMEOUT", "180", "Seconds (1 to 900) an HF Sandbox may take to be scheduled "
            "and answer before its run fails (and its job is cancelled)."),
    Setting("RLX_HEALTH_CHECKS", "on-demand", "`auto`: every newly indexed revision of a runnable dataset gets a "
            "health check (oracle twice and nop once per task, on the bulk queue); `on-demand`: only when a visitor "
            "asks on the environment page. `rlx demo` sets `auto`."),
    Setting("RLX_HEALTH_CAP", "4", "Sandboxes (1 to 8) one health check uses at once."),
    Setting("RLX_HEALTH_BUDGET", "300", "Tasks (1 to 5000) one health check runs at most; the rest are listed "
            "as not checked."),
    Setting("RLX_PREVIEWS_MAX_MB", "32", "Megabytes (1 to 100000) of link-preview pictures kept in "
            "STORAGE_DIR/previews; past that, drawing a new one removes the least recently served (drawn again "
            "when next asked for)."),
    Setting("RLX_DEMO_ACCOUNT", None, "A stand-in account the sign-in page offers as one button, so the signed-in "
            "pages can be seen offline (`rlx demo` sets `demo-user`). It has no Hub token; refused unless RLX_SOURCE "
            "is a folder."),
    Setting("RLX_JUDGE_ENDPOINT", None, "An OpenAI-compatible endpoint (https://…/v1) this server pays for, that "
            "grades model-graded tasks with the judge the visitor picks from the admin's pool. Default: Inference "
            "Providers' router (HF_ROUTER_URL) with the signed-in visitor's own token."),
    Setting("RLX_JUDGE_KEY", None, "The key for RLX_JUDGE_ENDPOINT; held by the worker's judge relay only, never "
            "by a sandbox, a record or a log."),
    Setting("RLX_AGENTS_DIR", None, "The folder of agents installed ahead of time for the local sandbox "
            "(`deploy/agents/install.sh` fills it: mini-swe-agent's venv, the npm agents). An agent missing from it "
            "is shown on the run form as not installed, with the reason. Default: .tools/agents in the checkout."),
]

_DEFAULT_SOURCE = Path(__file__).resolve().parent.parent / "examples"
_DEFAULT_AGENTS_DIR = Path(__file__).resolve().parent.parent / ".tools" / "agents"


@dataclass(frozen=True)
class Config:
    storage_dir: Path
    cache_dir: Path
    redis_url: str | None
    hf_endpoint: str
    source: str  # "hub", or an absolute folder path
    session_secret: str
    public_url: str | None = None  # scheme://host[:port], no trailing slash
    admin_url: str | None = None  # the admin app's own, when it is not public_url's origin
    model_dns: tuple[str, int] | None = None  # (ip, port) of the DNS server for visitors' model endpoints
    viewer_url: str = "https://datasets-server.huggingface.co"
    space_hosts: tuple[tuple[str, str], ...] = ()  # (subdomain, loopback base URL): Spaces served locally
    openid_provider_url: str | None = None
    oauth_client_id: str | None = None
    oauth_client_secret: str | None = field(default=None, repr=False)
    oauth_scopes: str = DEFAULT_SCOPES
    admin_org: str | None = None
    trusted_hosts: tuple[str, ...] = ()  # besides loopback names, IP addresses and public_url's host
    metrics_token: str | None = None
    proxy_hops: int = 0  # trusted proxies in front of us (werkzeug's ProxyFix); 0: X-Forwarded-* ignored
    snapshot_check_s: float = 60.0
    worker_heartbeat_s: int = 2  # rlx/queue/liveness.py
    worker_lapse_s: int = 60
    hf_sandbox_start_s: float = 180.0
    previews_max_bytes: int = 32 * 1024 * 1024
    health_auto: bool = False  # RLX_HEALTH_CHECKS=auto (rlx/runs/health.py)
    health_cap: int = 4
    health_budget: int = 300
    hf_router_url: str = "https://router.huggingface.co/v1"  # Inference Providers: terminus-2 with the visitor's token
    agents_dir: Path = _DEFAULT_AGENTS_DIR  # the agents installed ahead of time (rlx/runs/agents.py)
    demo_account: str | None = None  # RLX_DEMO_ACCOUNT: the demo's stand-in account (rlx/auth/demo.py)
    judge_endpoint: str | None = None  # RLX_JUDGE_ENDPOINT: the server's own judge (rlx/runs/judges.py)
    judge_key: str | None = field(default=None, repr=False)

    @classmethod
    def from_env(cls, environ: dict | None = None) -> "Config":
        """Read and check every setting; raise ConfigError with one sentence on the first bad one."""
        env = os.environ if environ is None else environ
        storage = Path(env.get("STORAGE_DIR") or "./data").expanduser().resolve()
        _ensure_writable_dir(storage, "STORAGE_DIR")
        cache = Path(env.get("RLX_CACHE_DIR") or storage / "cache").expanduser().resolve()
        _ensure_writable_dir(cache, "RLX_CACHE_DIR")
        return cls(
            storage_dir=storage,
            cache_dir=cache,
            redis_url=_check_redis_url(env.get("REDIS_URL") or None),
            hf_endpoint=_check_http_url(env.get("HF_ENDPOINT") or "https://huggingface.co", "HF_ENDPOINT"),
            hf_router_url=_check_http_url(env.get("HF_ROUTER_URL") or "https://router.huggingface.co/v1",
                                          "HF_ROUTER_URL"),
            source=_check_source(env.get("RLX_SOURCE") or str(_DEFAULT_SOURCE)),
            agents_dir=Path(env.get("RLX_AGENTS_DIR") or _DEFAULT_AGENTS_DIR).expanduser().resolve(),
            session_secret=env.get("SESSION_SECRET") or _stored_secret(storage),
            public_url=_check_public_url(env.get("RLX_PUBLIC_URL") or None),
            admin_url=_check_public_url(env.get("RLX_ADMIN_URL") or None, "RLX_ADMIN_URL"),
            model_dns=_check_nameserver(env.get("RLX_MODEL_DNS") or None),
            viewer_url=_check_http_url(env.get("HF_VIEWER_URL") or "https://datasets-server.huggingface.co",
                                       "HF_VIEWER_URL"),
            space_hosts=_check_space_hosts(env.get("RLX_SPACE_HOSTS") or ""),
            openid_provider_url=_check_optional_url(env.get("OPENID_PROVIDER_URL") or None, "OPENID_PROVIDER_URL"),
            oauth_client_id=env.get("OAUTH_CLIENT_ID") or None,
            oauth_client_secret=env.get("OAUTH_CLIENT_SECRET") or None,
            oauth_scopes=_check_scopes(env.get("OAUTH_SCOPES") or DEFAULT_SCOPES),
            admin_org=env.get("ADMIN_ORG") or None,
            trusted_hosts=_check_hosts(env.get("RLX_TRUSTED_HOSTS") or ""),
            metrics_token=env.get("METRICS_TOKEN") or None,
            proxy_hops=_check_proxy_hops(env.get("RLX_PROXY_HOPS") or "0"),
            snapshot_check_s=_check_seconds(env.get("RLX_SNAPSHOT_CHECK_S") or "60", "RLX_SNAPSHOT_CHECK_S"),
            worker_heartbeat_s=int(_check_seconds(env.get("RLX_WORKER_HEARTBEAT_S") or "2", "RLX_WORKER_HEARTBEAT_S",
                                                  high=60)),
            worker_lapse_s=int(_check_seconds(env.get("RLX_WORKER_LAPSE_S") or "60", "RLX_WORKER_LAPSE_S", low=5)),
            hf_sandbox_start_s=_check_seconds(env.get("RLX_HF_SANDBOX_START_TIMEOUT") or "180",
                                              "RLX_HF_SANDBOX_START_TIMEOUT", high=900),
            previews_max_bytes=_check_megabytes(env.get("RLX_PREVIEWS_MAX_MB") or "32", "RLX_PREVIEWS_MAX_MB"),
            health_auto=_check_choice(env.get("RLX_HEALTH_CHECKS") or "on-demand", "RLX_HEALTH_CHECKS",
                                      ("auto", "on-demand")) == "auto",
            health_cap=_check_count(env.get("RLX_HEALTH_CAP") or "4", "RLX_HEALTH_CAP", 8),
            health_budget=_check_count(env.get("RLX_HEALTH_BUDGET") or "300", "RLX_HEALTH_BUDGET", 5000),
            demo_account=_check_demo_account(env.get("RLX_DEMO_ACCOUNT") or None, env.get("RLX_SOURCE") or ""),
            judge_endpoint=_check_optional_url(env.get("RLX_JUDGE_ENDPOINT") or None, "RLX_JUDGE_ENDPOINT"),
            judge_key=env.get("RLX_JUDGE_KEY") or None,
        )

    @property
    def oauth_enabled(self) -> bool:
        return bool(self.openid_provider_url and self.oauth_client_id)


def _check_count(value: str, name: str, high: int) -> int:
    if not value.isdigit() or not 1 <= int(value) <= high:
        raise ConfigError(f"{name} must be a whole number from 1 to {high:,}, not {value[:40]!r}.")
    return int(value)


def _check_choice(value: str, name: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(choices)}, not {value[:40]!r}.")
    return value


def _ensure_writable_dir(path: Path, name: str) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"{name} is set to {path}, which cannot be created ({exc.strerror}).") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise ConfigError(f"{name} is set to {path}, which this user cannot write to.")


def _check_http_url(value: str, name: str) -> str:
    parsed = urlparse(value)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ConfigError(f"{name} must be an http(s) URL such as https://huggingface.co, not {value!r}.")
    return value.rstrip("/")


def _check_optional_url(value: str | None, name: str) -> str | None:
    return None if value is None else _check_http_url(value, name)


def _check_scopes(value: str) -> str:
    """openid and profile are always asked for (as a Space does); the rest as configured."""
    scopes = value.replace(",", " ").split()
    if any(not s.replace("-", "").isalnum() for s in scopes):
        raise ConfigError(f"OAUTH_SCOPES must be scope names separated by spaces, not {value!r}.")
    return " ".join(dict.fromkeys(["openid", "profile", *scopes]))


def _check_public_url(value: str | None, name: str = "RLX_PUBLIC_URL") -> str | None:
    if value is None:
        return None
    parsed = urlparse(value)
    if parsed.scheme not in ("http", "https") or not parsed.hostname or parsed.path.strip("/") or parsed.query:
        raise ConfigError(f"{name} must be the app's address alone, such as https://explorer.example.org, "
                          f"not {value!r}.")
    return f"{parsed.scheme}://{parsed.netloc}"


def _check_nameserver(value: str | None) -> tuple[str, int] | None:
    if value is None:
        return None
    host, port = value.strip(), "53"
    if host.count(":") == 1 or host.startswith("["):  # ip:port, or [ipv6]:port
        host, _, port = host.rpartition(":")
    host = host.strip("[]")
    try:
        ipaddress.ip_address(host)
        number = int(port)
    except ValueError:
        number = 0
    if not 1 <= number <= 65535:
        raise ConfigError(f"RLX_MODEL_DNS must be a DNS server's IP address, optionally with :port, not {value!r}.")
    return host, number


_SUBDOMAIN = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\Z")
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


def _check_demo_account(value: str | None, source: str) -> str | None:
    if value is None:
        return None
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,38}", value):
        raise ConfigError(f"RLX_DEMO_ACCOUNT must be a handle such as demo-user, not {value[:40]!r}.")
    if source.strip().lower() == "hub":
        raise ConfigError("RLX_DEMO_ACCOUNT is for the demo on a folder of examples; it cannot be set with "
                          "RLX_SOURCE=hub.")
    return value


def _check_space_hosts(value: str) -> tuple[tuple[str, str], ...]:
    """`sub=http://127.0.0.1:port,...` as pairs; anything but a loopback http address is refused, so this
    setting can only point a Space at this machine, never at another host."""
    pairs = []
    for item in filter(None, (part.strip() for part in value.split(","))):
        subdomain, _, url = item.partition("=")
        parsed = urlparse(url.strip())
        if not _SUBDOMAIN.match(subdomain.strip()) or parsed.scheme != "http" or \
                parsed.hostname not in _LOOPBACK_NAMES or not parsed.port or parsed.path.strip("/") or parsed.query:
            raise ConfigError(f"RLX_SPACE_HOSTS must be subdomain=http://127.0.0.1:port pairs on loopback "
                              f"addresses, not {item!r}.")
        pairs.append((subdomain.strip(), f"http://{parsed.netloc}"))
    return tuple(pairs)


def _check_hosts(value: str) -> tuple[str, ...]:
    hosts = tuple(h.strip().lower() for h in value.split(",") if h.strip())
    for host in hosts:
        if not re.fullmatch(r"\.?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*", host):
            raise ConfigError(f"RLX_TRUSTED_HOSTS holds host names separated by commas (no scheme or port), "
                              f"not {host!r}.")
    return hosts


def _check_proxy_hops(value: str) -> int:
    if not re.fullmatch(r"[0-5]", value.strip()):
        raise ConfigError(f"RLX_PROXY_HOPS must be the number of proxies in front of the app, 0 to 5, not {value!r}.")
    return int(value)


def _check_seconds(value: str, name: str, low: float = 1, high: float = 3600) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = float("nan")
    if not low <= seconds <= high:  # NaN fails both comparisons
        raise ConfigError(f"{name} must be a number of seconds from {low:g} to {high:g}, not {value!r}.")
    return seconds


def _check_megabytes(value: str, name: str, low: int = 1, high: int = 100_000) -> int:
    """A whole number of megabytes, as bytes."""
    if not re.fullmatch(r"\d{1,6}", value.strip()) or not low <= int(value) <= high:
        raise ConfigError(f"{name} must be a whole number of megabytes from {low} to {high:,}, not {value!r}.")
    return int(value) * 1024 * 1024


def _check_redis_url(value: str | None) -> str | None:
    if value is None:
        return None
    parsed = urlparse(value)
    if parsed.scheme in ("redis", "rediss") and parsed.hostname:
        return value
    if parsed.scheme == "unix" and parsed.path:
        return value
    raise ConfigError(f"REDIS_URL must look like redis://host:6379/0 or unix:///path/redis.sock, not {value!r}.")


def _check_source(value: str) -> str:
    if value == "hub":
        return value
    folder = Path(value).expanduser().resolve()
    if not folder.is_dir():
        raise ConfigError(f"RLX_SOURCE is set to {value}, which is not a folder (use a folder path, or `hub`).")
    if not os.access(folder, os.R_OK | os.X_OK):
        raise ConfigError(f"RLX_SOURCE is set to {folder}, which this user cannot read.")
    return str(folder)


def _stored_secret(storage: Path) -> str:
    """The generated session secret, created once (0600) so restarts keep everyone signed in."""
    path = storage / "session-secret"
    if path.exists():
        return path.read_text().strip()
    secret = secrets.token_urlsafe(48)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(secret)
    os.replace(tmp, path)
    return secret
