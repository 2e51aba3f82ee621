"""The model relay: how an agent running inside the sandbox reaches the visitor's model without ever holding the key.

terminus-2 calls its model from the worker's own process. Installed agents (mini-swe-agent, codex, claude-code) are
programs inside the sandbox, so their calls start there; were they given the endpoint and key, the key would sit in the
sandbox's environment and in Harbor's command lines, where the task's own code (or a log) could read it. Instead,
for each run the worker serves a small HTTP relay on a unix socket in a folder of its own under /tmp, linked
read-only into the sandbox; a forwarder inside the sandbox (rlx/runs/installed_agents.py) listens on the
sandbox's own loopback and pipes each connection to that socket. The relay passes three paths on (`/v1/models`,
`/v1/chat/completions`, `/v1/responses`, which is what the agents' clients ask), answers Claude Code's
`/v1/messages` (passed on to an endpoint that answers `/messages` itself, else asked of it as chat completions:
rlx/runs/anthropic_bridge.py), adds the key, and sends them to the visitor's endpoint through the worker's egress
checks (rlx/runs/egress.py), so a run that has no network still reaches its model and nothing else. Answers stream
back as they come (codex reads server-sent events).

It also counts the tokens the endpoint reports in each answer's `usage`, for the run record, since not every agent
reports them itself, and notes which provider the router says served each answer (its cost is priced at that
provider's prices: rlx/runs/usage.py).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import socketserver
import tempfile
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import httpx

from rlx.runs import anthropic_bridge
from rlx.runs.egress import Egress, guarded_client
from rlx.runs.router_prices import ServedBy

log = logging.getLogger("rlx.runs")
PATHS = ("/v1/models", "/v1/chat/completions", "/v1/responses")
MESSAGES = "/v1/messages"  # Claude Code's one path, answered through rlx/runs/anthropic_bridge.py
MAX_BODY = 16 * 1024 * 1024  # bytes of one request: a long conversation fits, a flood does not
SOCKET_NAME = "model.sock"
SANDBOX_DIR = "/run/rlx-model"  # where the socket's folder appears inside the sandbox
CALL_TIMEOUT = 600.0


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    allow_reuse_address = True


class Refused(Exception):
    """A call the relay does not pass on: the HTTP status and a sentence for the caller."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class ModelRelay:
    """One run's relay. `start()` serves it; `stop()` closes it and removes the socket. A relay with other rules
    (rlx/runs/judge_relay.py) changes `paths`, `max_body` and `admit`."""

    paths = PATHS + (MESSAGES,)
    max_body = MAX_BODY

    def __init__(self, endpoint: str, key: str | None, egress: Egress, call_timeout: float = CALL_TIMEOUT):
        self.endpoint, self._key, self.egress = endpoint.rstrip("/"), key, egress
        # A short path of its own (a unix socket's path is at most 107 bytes), removed by stop().
        self.folder = Path(tempfile.mkdtemp(prefix="rlx-relay-"))
        self.call_timeout = call_timeout
        self.calls = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.usage_seen = False
        self.served = ServedBy()
        self.speaks_messages: bool | None = None  # does the endpoint answer /messages itself? (its first answer says)
        self._lock = threading.Lock()
        self._server: _Server | None = None

    @property
    def socket_path(self) -> Path:
        return self.folder / SOCKET_NAME

    def start(self) -> "ModelRelay":
        self.folder.mkdir(parents=True, exist_ok=True)
        os.chmod(self.folder, 0o755)  # the sandbox's own uid walks into it to reach the socket
        self._server = _Server(str(self.socket_path), self._handler())
        os.chmod(self.socket_path, 0o666)
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        self._key = None
        shutil.rmtree(self.folder, ignore_errors=True)

    def usage(self) -> dict:
        """What the endpoint reported, for the run record; empty when it reported nothing."""
        with self._lock:
            if not self.usage_seen:
                return {}
            return {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens}

    def admit(self, method: str, path: str, body: bytes) -> bytes:
        """The body to send on for one call, counted; Refused when it is not to be sent."""
        with self._lock:
            self.calls += 1
        return body

    def _count(self, usage) -> None:
        if not isinstance(usage, dict):
            return
        given = [usage.get(k) for k in ("prompt_tokens", "input_tokens", "completion_tokens", "output_tokens")]
        if not any(isinstance(v, int) for v in given):
            return
        with self._lock:
            self.usage_seen = True
            self.input_tokens += int(usage.get("prompt_tokens") or usage.get("input_tokens") or 0)
            self.output_tokens += int(usage.get("completion_tokens") or usage.get("output_tokens") or 0)

    def _count_body(self, content_type: str, body: bytes) -> None:
        """Usage from a JSON answer, or from the server-sent events of a streamed one (the last one holding it)."""
        try:
            if "event-stream" not in content_type:
                self._count(json.loads(body).get("usage"))
                return
            found = None
            for line in body.splitlines():
                if line.startswith(b"data:") and b'"usage"' in line:
                    event = json.loads(line[5:].strip())
                    found = event.get("usage") or (event.get("response") or {}).get("usage") or found
            self._count(found)
        except (ValueError, AttributeError):
            pass

    def _handler(self):
        relay = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass  # the default logs request lines to stderr; nothing of a call belongs in the worker's log

            def _refuse(self, status: int, message: str) -> None:
                self._answer(status, {"error": {"message": message, "type": "relay_error"}})

            def do_GET(self):
                self._quietly("GET")

            def do_POST(self):
                self._quietly("POST")

            def _quietly(self, method: str) -> None:
                try:
                    self._relay(method)
                except (BrokenPipeError, ConnectionResetError):  # the agent hung up first: nothing to tell it
                    self.close_connection = True

            def _relay(self, method: str) -> None:
                path = self.path.split("?", 1)[0].rstrip("/")
                if path not in relay.paths:
                    return self._refuse(404, f"The model relay passes on {', '.join(relay.paths)} only.")
                if self.headers.get("Transfer-Encoding"):
                    return self._refuse(411, "The model relay needs a Content-Length.")
                try:
                    length = int(self.headers.get("Content-Length") or 0)
                except ValueError:
                    return self._refuse(400, "Bad Content-Length.")
                if not 0 <= length <= relay.max_body:
                    return self._refuse(413, f"A model request is at most {relay.max_body} bytes.")
                body = self.rfile.read(length) if length else b""
                try:
                    body = relay.admit(method, path, body)
                except Refused as refused:
                    return self._refuse(refused.status, str(refused))
                headers = {"Content-Type": self.headers.get("Content-Type") or "application/json",
                           "Accept": self.headers.get("Accept") or "*/*"}
                key = relay._key
                if key:
                    headers["Authorization"] = f"Bearer {key}"
                if path == MESSAGES:
                    return self._bridge(body, headers)
                url = relay.endpoint + path[len("/v1"):]
                try:
                    with guarded_client(relay.egress, timeout=relay.call_timeout) as client:
                        with client.stream(method, url, content=body or None, headers=headers) as answer:
                            self._pass_back(answer)
                except httpx.HTTPError as exc:
                    self._refuse(502, f"The model endpoint did not answer: {type(exc).__name__}.")
                except Exception as exc:  # EgressRefused and the like: the endpoint is no longer allowed
                    self._refuse(502, f"The model endpoint cannot be reached from here: {type(exc).__name__}.")

            def _bridge(self, body: bytes, headers: dict) -> None:
                """A Messages request, passed on to an endpoint that speaks Messages itself, else asked of it as chat
                completions and answered in kind."""
                if relay.speaks_messages is not False and self._pass_messages_on(body, headers):
                    return
                try:
                    asked = json.loads(body)
                    chat, names = anthropic_bridge.chat_request(asked)
                except ValueError as exc:
                    return self._answer(400, anthropic_bridge.error_body(400, f"Not a Messages request: {exc}"))
                headers = {**headers, "Content-Type": "application/json", "Accept": "application/json"}
                try:
                    with guarded_client(relay.egress, timeout=relay.call_timeout) as client:
                        answer = client.post(relay.endpoint + "/chat/completions", json=chat, headers=headers)
                except httpx.HTTPError as exc:
                    message = f"The model endpoint did not answer: {type(exc).__name__}."
                    return self._answer(502, anthropic_bridge.error_body(502, message))
                except Exception as exc:  # EgressRefused and the like
                    message = f"The model endpoint cannot be reached from here: {type(exc).__name__}."
                    return self._answer(502, anthropic_bridge.error_body(502, message))
                try:
                    given = answer.json()
                except ValueError:
                    given = None
                if answer.status_code != 200:
                    said = given.get("error") if isinstance(given, dict) else None
                    said = said.get("message") if isinstance(said, dict) else said
                    message = f"The model endpoint answered {answer.status_code}: {str(said or '')[:500]}".strip()
                    return self._answer(answer.status_code, anthropic_bridge.error_body(answer.status_code, message))
                relay.served.note(answer.headers)
                try:
                    relay._count(given.get("usage"))
                    message = anthropic_bridge.messages_answer(given, names, str(asked.get("model")))
                except (ValueError, TypeError, AttributeError) as exc:
                    return self._answer(502, anthropic_bridge.error_body(502, f"The model endpoint's answer could "
                                                                              f"not be read: {exc}"))
                if not asked.get("stream"):
                    return self._answer(200, message)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                for event in anthropic_bridge.sse_events(message):
                    self.wfile.write(event)
                self.wfile.flush()
                self.close_connection = True

            def _pass_messages_on(self, body: bytes, headers: dict) -> bool:
                """Send the request as it is to the endpoint's /messages; False, and never tried again for this run,
                when the endpoint's first answer there is not a success (an OpenAI-only server: 404 and the like)."""
                native = {**headers, "anthropic-version": self.headers.get("anthropic-version") or "2023-06-01"}
                if relay._key:
                    native["x-api-key"] = relay._key
                try:
                    with guarded_client(relay.egress, timeout=relay.call_timeout) as client:
                        with client.stream("POST", relay.endpoint + "/messages", content=body,
                                           headers=native) as answer:
                            kind = answer.headers.get("content-type", "")
                            if relay.speaks_messages is None and (answer.status_code != 200 or not (
                                    "json" in kind or "event-stream" in kind)):
                                relay.speaks_messages = False
                                return False
                            relay.speaks_messages = True
                            self._pass_back(answer)
                            return True
                except (BrokenPipeError, ConnectionResetError):
                    raise  # the agent hung up: nothing to tell it
                except Exception as exc:  # unreachable, refused by the egress rules, or cut off
                    if relay.speaks_messages is None:
                        relay.speaks_messages = False
                        return False
                    message = f"The model endpoint did not answer: {type(exc).__name__}."
                    self._answer(502, anthropic_bridge.error_body(502, message))
                    return True

            def _answer(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _pass_back(self, answer: httpx.Response) -> None:
                content_type = answer.headers.get("content-type", "application/json")
                self.send_response(answer.status_code)
                self.send_header("Content-Type", content_type)
                self.send_header("Connection", "close")  # the body ends when the connection does
                self.end_headers()
                kept = bytearray()
                for chunk in answer.iter_bytes():
                    self.wfile.write(chunk)
                    self.wfile.flush()
                    if len(kept) < MAX_BODY:
                        kept += chunk
                if answer.status_code == 200:
                    relay._count_body(content_type, bytes(kept))
                    if not self.path.startswith("/v1/models"):
                        relay.served.note(answer.headers)
                self.close_connection = True

        return Handler
