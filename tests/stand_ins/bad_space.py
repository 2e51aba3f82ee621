"""A Space server that misbehaves on purpose (a stand-in for the worst of the outside world): set `.mode` to

  hang      never answers (holds the connection until the test ends)
  5xx       503 on every route
  huge      a 100 MB body on every route (streamed, so it costs no memory)
  badjson   200 with a body that is not JSON
  redirect  302 to `.redirect_to` (another host) on every route
  pages     `.pages[path] = (status, headers, body)` and 404 elsewhere (a server's web pages)
  old       an old openenv server: health, metadata and schema, /reset and /step, tools with snake_case
            `input_schema`, and no Task API or /list_environments (404)

`.hits` counts requests by path.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HUGE = 100 * 1024 * 1024
OLD_OPENAPI = {"openapi": "3.1.0", "info": {"title": "OpenEnv Environment HTTP API", "version": "1.0.0"},
               "paths": {p: {m: {"summary": p.strip("/").title()}} for p, m in
                         (("/reset", "post"), ("/step", "post"), ("/state", "get"), ("/metadata", "get"),
                          ("/health", "get"), ("/schema", "get"), ("/mcp", "post"))}}
OLD_TOOLS = {"jsonrpc": "2.0", "id": 1, "result": {"tools": [
    {"name": "add", "title": "Add", "description": "Add two integers.",
     "input_schema": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}}]}}


class BadSpace:
    def __init__(self, mode: str = "5xx", redirect_to: str = "https://elsewhere.example/"):
        self.mode = mode
        self.redirect_to = redirect_to
        self.hits: Counter = Counter()
        self.pages: dict[str, tuple[int, dict, bytes]] = {}
        self._release = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.space = self
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> "BadSpace":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        self._answer()

    def do_POST(self):
        length = int(self.headers.get("content-length") or 0)
        self.rfile.read(length)
        self._answer()

    def _send(self, status: int, body: bytes, content_type: str = "application/json", headers=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _answer(self):
        space: BadSpace = self.server.space
        space.hits[self.path] += 1
        mode = space.mode
        try:
            if mode == "hang":
                space._release.wait(60)
            elif mode == "5xx":
                self._send(503, b'{"detail":"Service Unavailable"}')
            elif mode == "badjson":
                self._send(200, b"{this is not json")
            elif mode == "redirect":
                self._send(302, b"", headers=[("Location", space.redirect_to)])
            elif mode == "huge":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()  # no Content-Length: the client must count for itself
                chunk = b" " * 65536
                for _ in range(HUGE // len(chunk)):
                    self.wfile.write(chunk)
            elif mode == "old":
                self._old()
            elif mode == "pages":
                status, headers, body = space.pages.get(self.path, (404, {}, b'{"detail":"Not Found"}'))
                self._send(status, body, headers.get("Content-Type", "text/html"),
                           [(k, v) for k, v in headers.items() if k != "Content-Type"])
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _old(self):
        routes = {"/openapi.json": OLD_OPENAPI, "/health": {"status": "healthy"},
                  "/metadata": {"name": "CounterEnv", "description": "CounterEnv environment"},
                  "/schema": {"action": {"title": "CountAction", "type": "object"}, "observation": {},
                              "state": {}}}
        if self.command == "POST" and self.path == "/mcp":
            return self._send(200, json.dumps(OLD_TOOLS).encode())
        if self.command == "GET" and self.path in routes:
            return self._send(200, json.dumps(routes[self.path]).encode())
        self._send(404, b'{"detail":"Not Found"}')
