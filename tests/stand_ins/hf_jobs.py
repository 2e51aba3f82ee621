"""A stand-in for Hugging Face Jobs and the sandbox server each HF Sandbox job runs, on 127.0.0.1.

huggingface_hub's own client (`Sandbox.create`, `run_job`, `inspect_job`, `fetch_job_logs`, `cancel_job`) talks to
it through HF_ENDPOINT exactly as to the Hub:

- `GET /api/whoami-v2` (Bearer token), `GET /api/agent-harnesses` (asked at the client's first request);
- `POST /api/jobs/<namespace>`: the job spec (dockerImage, command, environment, secrets, flavor, labels,
  timeoutSeconds, volumes, expose); answers a JobInfo whose `status.exposeUrls` holds the server's URL
  (`<url>/proxy/<job>--49983.hf.jobs`); `GET /api/jobs/<ns>/<id>` (inspect), `POST .../cancel`, and
  `GET .../logs`, server-sent events of `data: {"data": line, "timestamp": ...}`, followed until the job ends;
- the sandbox server under the exposed URL: `GET /health` (`{"protocol": 3}`), `POST /v1/exec` answering an
  NDJSON stream of stdout/stderr events ending with `exit`, and `/v1/files/{write,read,stat,mkdir,delete,list}`.
  Every server request must carry the Bearer token and `X-Sandbox-Token`, the HMAC the client derives from the
  token and the nonce in the job's labels (the job's `SBX_TOKEN` secret).

Each job is a real bubblewrap sandbox (rlx.runs.bwrap) with the network on, as a Job container has; its
userland is this machine's. Tests steer it with fault switches and read back the jobs and the request log.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import secrets
import shlex
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from rlx.runs.bwrap import _NO_CAPABILITIES, Limits, Sandbox

PORT_SUFFIX = "--49983.hf.jobs"
TERMINAL = ("COMPLETED", "CANCELED", "ERROR", "DELETED")
WRITABLE = ("/tmp", "/root", "/logs", "/app", "/tests", "/solution", "/installed-agent", "/opt", "/workspace")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class ContainerSandbox(Sandbox):
    """A Job container lets its processes make namespaces (the client cuts a no-network task's network with
    `unshare`), so the stand-in's commands run without the system-call filter our own sandboxes get."""

    def enter(self) -> None:
        self._join()

    def command(self, *args, **kwargs) -> list[str]:  # and keep the capabilities a container's root has
        argv = super().command(*args, **kwargs)
        start = argv.index(_NO_CAPABILITIES[0])
        return argv[:start] + argv[start + len(_NO_CAPABILITIES):]


@dataclass
class Job:
    id: str
    owner: str
    spec: dict
    stage: str = "RUNNING"
    created_at: str = field(default_factory=_now)
    logs: list[tuple[str, str]] = field(default_factory=list)  # (timestamp, line)
    sandbox: Sandbox | None = None

    @property
    def labels(self) -> dict:
        return self.spec.get("labels") or {}

    def log(self, line: str) -> None:
        self.logs.append((_now(), line))


class HFJobsStandIn:
    def __init__(self):
        self.users: dict[str, str] = {}  # token -> user name
        self.jobs: dict[str, Job] = {}
        self.requests: list[tuple[str, str, str]] = []  # (method, path, the raw Authorization header)
        self.create_failure: int | None = None  # answer POST /api/jobs/<ns> with this status
        self.never_ready = False  # /health answers 503 forever
        self.hang_create = 0.0  # seconds POST /api/jobs/<ns> waits before answering (a Jobs API that hangs)
        self.lock = threading.Lock()
        # bwrap dies with the *thread* that started it (--die-with-parent is a per-thread signal), so sandboxes are
        # started from one long-lived thread, not from a request's.
        self._spawner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hf-jobs-spawner")
        self._server: ThreadingHTTPServer | None = None

    # --- steering ----------------------------------------------------------------------------------------

    def add_user(self, token: str, name: str) -> None:
        self.users[token] = name

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "HFJobsStandIn":
        stand_in = self

        class Handler(_Handler):
            app = stand_in

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        return self

    def stop(self) -> None:
        for job in list(self.jobs.values()):
            self.cancel(job)
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        self._spawner.shutdown(wait=False)

    def cancel(self, job: Job) -> None:
        with self.lock:
            if job.stage in TERMINAL:
                return
            job.stage = "CANCELED"
        job.log("sbx: job canceled, shutting down")
        if job.sandbox is not None:
            job.sandbox.stop()

    def running_jobs(self) -> list[Job]:
        return [j for j in self.jobs.values() if j.stage == "RUNNING"]

    # --- jobs ----------------------------------------------------------------------------------------------

    def create(self, owner: str, spec: dict) -> Job:
        job = Job(id=secrets.token_hex(12), owner=owner, spec=spec)
        job.log("===== Job started at " + job.created_at + " =====")
        sandbox = ContainerSandbox(workdir="/tmp", network=True, writable=WRITABLE, hostname="sandbox",
                          limits=Limits(storage_mb=512))
        self._spawner.submit(sandbox.start).result()
        job.sandbox = sandbox
        job.log(f"sbx: sandbox server {spec.get('environment', {}).get('SBX_PORT', '?')} listening "
                f"(image {spec.get('dockerImage')}, flavor {spec.get('flavor')})")
        self.jobs[job.id] = job
        return job

    def job_info(self, job: Job) -> dict:
        spec = job.spec
        return {
            "id": job.id, "createdAt": job.created_at, "startedAt": job.created_at,
            "dockerImage": spec.get("dockerImage"), "command": spec.get("command"), "arguments": spec.get("arguments"),
            "environment": spec.get("environment"), "flavor": spec.get("flavor"), "labels": spec.get("labels"),
            "owner": {"id": "u-" + job.owner, "name": job.owner, "type": "user"},
            "initiator": {"type": "user", "id": "u-" + job.owner, "name": job.owner},
            "status": {"stage": job.stage, "message": None,
                       "exposeUrls": [f"{self.url}/proxy/{job.id}{PORT_SUFFIX}"] if job.stage == "RUNNING" else []},
            "expose": spec.get("expose"),
        }


class _Handler(BaseHTTPRequestHandler):
    app: HFJobsStandIn
    protocol_version = "HTTP/1.0"  # one request per connection; a stream ends when the connection closes

    def log_message(self, *args):  # quiet
        pass

    # --- plumbing ------------------------------------------------------------------------------------------

    def _route(self, method: str) -> None:
        parts = urlsplit(self.path)
        self.query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        self.app.requests.append((method, parts.path, self.headers.get("Authorization", "")))
        length = int(self.headers.get("Content-Length") or 0)
        self.body = self.rfile.read(length) if length else b""
        try:
            if parts.path.startswith("/proxy/"):
                self._server_route(method, parts.path)
            else:
                self._api_route(method, parts.path)
        except BrokenPipeError:
            pass

    do_GET = lambda self: self._route("GET")  # noqa: E731
    do_POST = lambda self: self._route("POST")  # noqa: E731
    do_PUT = lambda self: self._route("PUT")  # noqa: E731
    do_DELETE = lambda self: self._route("DELETE")  # noqa: E731

    def _json(self, status: int, data, headers: dict | None = None) -> None:
        raw = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(raw)

    def _user(self) -> str | None:
        header = self.headers.get("Authorization", "")
        return self.app.users.get(header[7:]) if header.startswith("Bearer ") else None

    # --- the Jobs API ----------------------------------------------------------------------------------------

    def _api_route(self, method: str, path: str) -> None:
        if path == "/api/agent-harnesses":
            return self._json(200, {"standardEnvVars": [], "harnesses": {}})
        user = self._user()
        if user is None:
            return self._json(401, {"error": "Invalid credentials in Authorization header"})
        if path == "/api/whoami-v2":
            return self._json(200, {"type": "user", "id": "u-" + user, "name": user, "fullname": user.title(),
                                    "orgs": [], "auth": {"type": "access_token",
                                                         "accessToken": {"role": "fineGrained"}}})
        parts = path.strip("/").split("/")
        if len(parts) < 3 or parts[:2] != ["api", "jobs"]:
            return self._json(404, {"error": "Not found"})
        namespace = parts[2]
        if namespace != user:
            return self._json(403, {"error": f"You cannot run jobs in {namespace}"})
        if len(parts) == 3 and method == "POST":
            if self.app.hang_create:
                time.sleep(self.app.hang_create)
            if self.app.create_failure:
                return self._json(self.app.create_failure, {"error": "Jobs are unavailable right now"})
            spec = json.loads(self.body or b"{}")
            if "SBX_TOKEN" not in (spec.get("secrets") or {}) or not (spec.get("expose") or {}).get("ports"):
                return self._json(400, {"error": "a sandbox job needs an SBX_TOKEN secret and an exposed port"})
            return self._json(200, self.app.job_info(self.app.create(namespace, spec)))
        job = self.app.jobs.get(parts[3]) if len(parts) > 3 else None
        if job is None or job.owner != namespace:
            return self._json(404, {"error": "Job not found"})
        tail = parts[4] if len(parts) > 4 else None
        if tail is None and method == "GET":
            return self._json(200, self.app.job_info(job))
        if tail == "cancel" and method == "POST":
            self.app.cancel(job)
            return self._json(200, {})
        if tail == "logs" and method == "GET":
            return self._logs(job)
        return self._json(404, {"error": "Not found"})

    def _logs(self, job: Job) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        sent, deadline = 0, time.monotonic() + 600
        while time.monotonic() < deadline:
            for stamp, line in job.logs[sent:]:
                self.wfile.write(f"data: {json.dumps({'data': line, 'timestamp': stamp})}\n\n".encode())
                sent += 1
            self.wfile.flush()
            if job.stage in TERMINAL and sent >= len(job.logs):
                return
            time.sleep(0.1)

    # --- the sandbox server ------------------------------------------------------------------------------

    def _server_route(self, method: str, path: str) -> None:
        host, _, rest = path[len("/proxy/"):].partition("/")
        job = self.app.jobs.get(host.removesuffix(PORT_SUFFIX))
        if job is None or job.stage != "RUNNING":
            return self._json(502, {"error": "no such running job"})
        user = self._user()
        expected = hmac.new(_token(self).encode(), f"hf-sandbox:{job.labels.get('hf-sandbox-nonce')}".encode(),
                            hashlib.sha256).hexdigest() if user else None
        if user != job.owner or self.headers.get("X-Sandbox-Token") != expected \
                or expected != job.spec["secrets"]["SBX_TOKEN"]:
            return self._json(401, {"error": "unauthorized"})
        route = "/" + rest
        if route == "/health":
            if self.app.never_ready:
                return self._json(503, {"error": "starting"})
            return self._json(200, {"status": "ok", "version": "0.7.0", "protocol": 3})
        if route == "/v1/exec" and method == "POST":
            return self._exec(job, json.loads(self.body or b"{}"))
        if route.startswith("/v1/files/"):
            return self._files(job, method, route[len("/v1/files/"):])
        return self._json(404, {"error": "Not found"})

    def _exec(self, job: Job, payload: dict) -> None:
        cmd = payload.get("cmd")
        shell = payload.get("shell", isinstance(cmd, str))
        script = f"/bin/sh -c {shlex.quote(cmd)}" if shell else shlex.join(cmd)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.end_headers()
        started = time.monotonic()

        async def on_output(text: str, stream: str) -> None:
            self.wfile.write((json.dumps({"event": stream, "data": text}) + "\n").encode())
            self.wfile.flush()

        stdin = payload.get("stdin")
        outcome = asyncio.run(job.sandbox.run(
            script, env={k: str(v) for k, v in (payload.get("env") or {}).items()}, cwd=payload.get("cwd") or "/",
            timeout=payload.get("timeout") or 3600, stdin=stdin.encode() if stdin is not None else None,
            on_output=on_output))
        if job.stage != "RUNNING":
            return  # the job was cancelled under the command: the connection just ends
        self.wfile.write((json.dumps({"event": "exit", "exit_code": outcome.return_code,
                                      "timed_out": outcome.timed_out,
                                      "duration_ms": int((time.monotonic() - started) * 1000)}) + "\n").encode())

    def _files(self, job: Job, method: str, op: str) -> None:
        path = self.query.get("path", "")
        if not path.startswith("/"):
            return self._json(400, {"error": "path must be absolute"})
        quoted = shlex.quote(path)

        def run(script: str, stdin: bytes | None = None):
            return asyncio.run(job.sandbox.run(script, stdin=stdin, timeout=120))

        if op == "write" and method == "PUT":
            if int(self.query.get("offset", 0)):
                return self._json(400, {"error": "ranged writes are not served by this stand-in"})
            outcome = run(f"mkdir -p \"$(dirname {quoted})\" && cat > {quoted}", self.body)
            return self._json(200 if outcome.return_code == 0 else 500, {"ok": outcome.return_code == 0})
        if op == "mkdir" and method == "POST":
            run(f"mkdir -p {quoted}")
            return self._json(200, {"ok": True})
        if op == "delete" and method == "DELETE":
            run(f"rm -f{'r' if self.query.get('recursive') else ''} {quoted}")
            return self._json(200, {"ok": True})
        if op == "stat" and method == "GET":
            outcome = run(f"stat -c '%F|%s|%Y|%a' {quoted}")
            if outcome.return_code != 0:
                return self._json(404, {"error": f"{path}: no such file or directory"})
            kind, size, mtime, mode = outcome.stdout.strip().split("|")
            return self._json(200, {"name": path.rsplit("/", 1)[-1], "path": path,
                                    "type": "dir" if kind == "directory" else "file", "size": int(size),
                                    "mtime_ms": int(mtime) * 1000, "mode": mode})
        if op == "read" and method == "GET":
            argv = job.sandbox.command(f"cat {quoted}")
            import subprocess

            done = subprocess.run(argv, capture_output=True, timeout=120, env={"PATH": "/usr/bin:/bin"})
            if done.returncode != 0:
                return self._json(404, {"error": f"{path}: no such file or directory"})
            data = done.stdout
            offset = int(self.query.get("offset", 0))
            length = int(self.query.get("length", len(data) - offset))
            chunk = data[offset:offset + length]
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(chunk)))
            self.end_headers()
            self.wfile.write(chunk)
            return
        return self._json(404, {"error": "Not found"})


def _token(handler: _Handler) -> str:
    return handler.headers.get("Authorization", "")[7:]
