"""A stand-in for an OpenAI-compatible model server: a real HTTP server on 127.0.0.1.

It speaks the wire protocol litellm's `openai/` provider uses: GET /v1/models and POST /v1/chat/completions with
a `chat.completion` answer (choices[0].message, finish_reason, usage). Each answer's content is the next scripted
terminus-2 action, a JSON object with analysis, plan, commands (keystrokes and a duration) and task_complete, so a
real terminus-2 types those keystrokes into a real tmux in the sandbox. Each conversation follows the script on its own (the answer is chosen by how many
answers the conversation already holds), so several runs at once each get the whole script; the last repeats.

A request that offers tools (mini-swe-agent's `bash` tool, Claude Code's `Bash`) is answered with a tool call
instead: the script's entries are then `bash(command)` steps, and an `answer(text)` step replies with text alone;
any other string argument the tool's schema requires (MiMo Code's `description`) gets a scripted value.
A request with `stream: true` (Pi) gets the same answer as server-sent `chat.completion.chunk` events, usage last when `stream_options.include_usage` asks, then `data: [DONE]`; once the
script is done it answers a plain closing message, which is how a streaming agent knows to stop. POST /v1/responses
(Codex) answers the same steps as calls of Codex's `exec_command` tool, streamed as server-sent events, then a
closing message.

Tests steer it: `key` makes it refuse requests without that bearer token (401), `hang` makes it never answer,
`garbage` makes it answer text no agent can parse; `requests` records what it was asked.

As Inference Providers' router (`router_providers`), GET /v1/models answers the router's own shape: per model a
`providers` array, each with its `provider` name, `status`, `context_length`, `pricing: {input, output}` in US
dollars per million tokens (left out where a provider publishes none), `supports_tools`, `is_model_author`; and
every answer names the provider that served it in an `x-inference-provider` header (`serves`). `list_answers`
limits how many GET /v1/models it answers before it fails with 503 (a router whose model list is down).
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def bash(command: str, say: str = "Running the next command.") -> dict:
    """One step of a tool-calling agent: call its `bash` tool with `command`."""
    return {"command": command, "say": say}


def answer(text: str) -> dict:
    """A closing step of a tool-calling agent: a plain answer, no tool called, so its turn ends."""
    return {"say": text}


def action(keystrokes: str, done: bool = False, duration: float = 0.5) -> dict:
    """One terminus-2 reply: type `keystrokes` (a trailing newline presses Enter); `done` says the task is done."""
    return {"analysis": "Scripted by the model stand-in.", "plan": "Type the next command.",
            "commands": [{"keystrokes": keystrokes, "duration": duration}] if keystrokes else [],
            "task_complete": done}


def _required_strings(tool: dict) -> dict:
    """A value for each required string argument of the tool's schema (MiMo Code's bash asks for a description of
    the command as well), so a strict agent accepts the call; the command itself is the script's."""
    schema = tool.get("parameters") if isinstance(tool.get("parameters"), dict) else {}
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    return {name: f"Scripted {name}." for name in schema.get("required") or []
            if isinstance(name, str) and (properties.get(name) or {}).get("type") == "string"}


class ModelStandIn:
    def __init__(self, script: list[dict], model: str = "stand-in-model", key: str | None = None,
                 router_providers: list[dict] | None = None, serves: str | None = None):
        self.script, self.model, self.key = list(script), model, key
        self.router_providers, self.serves = router_providers, serves
        self.list_answers: int | None = None
        self.hang = False
        self.garbage = False
        self.requests: list[dict] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> "ModelStandIn":
        self._thread.start()
        return self

    def stop(self) -> None:
        self.hang = False
        self._server.shutdown()
        self._server.server_close()

    def model_entry(self) -> dict:
        entry = {"id": self.model, "object": "model", "created": 0, "owned_by": "stand-in"}
        if self.router_providers is None:
            return entry
        return {**entry, "architecture": {"input_modalities": ["text"], "output_modalities": ["text"]},
                "providers": [{"status": "live", "context_length": 131072, "supports_tools": True,
                               "supports_structured_output": False, "is_model_author": False, **p}
                              for p in self.router_providers]}

    def next_reply(self, messages: list) -> str:
        answered = sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")
        return json.dumps(self.script[min(answered, len(self.script) - 1)])

    def next_tool_call(self, messages: list, tools=None) -> dict:
        """The next scripted step as a call of the `bash` tool (named as the request's tools name it: Claude Code's
        is `Bash`): the script's entry is then {"command": ...}; an `answer` entry is a plain reply instead."""
        answered = sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")
        step = self.script[min(answered, len(self.script) - 1)]
        if "command" not in step:
            return {"role": "assistant", "content": step["say"]}
        offered = [t.get("function") or {} for t in tools or [] if isinstance(t, dict)]
        tool = next((f for f in offered if str(f.get("name")).lower() == "bash"), {"name": "bash"})
        arguments = {**_required_strings(tool), "command": step["command"]}
        return {"role": "assistant", "content": step.get("say", "Running the next command."),
                "tool_calls": [{"id": f"call_{answered + 1}", "type": "function",
                                "function": {"name": tool["name"], "arguments": json.dumps(arguments)}}]}

    def _handler(self):
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                if stand_in.serves and status == 200 and self.command == "POST":
                    self.send_header("X-Inference-Provider", stand_in.serves)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream_chat(self, body: dict, messages: list) -> None:
                """Chat completions streamed as server-sent events: the role and text first, then the tool call
                (its arguments in two pieces, as real servers split them), then the finish reason."""
                answered = sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")
                base = {"id": f"chatcmpl-{len(stand_in.requests)}", "object": "chat.completion.chunk",
                        "created": int(time.time()), "model": body.get("model") or stand_in.model}
                call = stand_in.next_tool_call(messages, body.get("tools")) if body.get("tools") else {}
                if answered < len(stand_in.script) and call.get("tool_calls"):
                    function = call["tool_calls"][0]["function"]
                    half = len(function["arguments"]) // 2
                    deltas = [{"role": "assistant", "content": call["content"]},
                              {"tool_calls": [{"index": 0, "id": call["tool_calls"][0]["id"], "type": "function",
                                               "function": {"name": function["name"],
                                                            "arguments": function["arguments"][:half]}}]},
                              {"tool_calls": [{"index": 0, "function": {"arguments": function["arguments"][half:]}}]}]
                    finish = "tool_calls"
                else:
                    deltas, finish = [{"role": "assistant", "content": "Done."}], "stop"
                chunks = [{**base, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas]
                chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
                if (body.get("stream_options") or {}).get("include_usage"):
                    chunks.append({**base, "choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 50,
                                                                    "total_tokens": 150}})
                self.send_response(200)
                if stand_in.serves:
                    self.send_header("X-Inference-Provider", stand_in.serves)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for chunk in chunks:
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.close_connection = True

            def _respond(self, body: dict) -> None:
                """The Responses API, streamed as server-sent events (what Codex asks for): the next script step
                as a call of Codex's `exec_command` tool, then, once the script is done, a closing message."""
                items = [i for i in body.get("input") or [] if isinstance(i, dict)]
                done = sum(1 for i in items if i.get("type") == "function_call")
                if done < len(stand_in.script):
                    step = stand_in.script[done]
                    item = {"type": "function_call", "id": f"fc_{done + 1}", "call_id": f"call_{done + 1}",
                            "name": "exec_command", "arguments": json.dumps({"cmd": step["command"]})}
                else:
                    item = {"type": "message", "id": "msg_end", "role": "assistant",
                            "content": [{"type": "output_text", "text": "Done.", "annotations": []}]}
                usage = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 50,
                         "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 150}
                self.send_response(200)
                if stand_in.serves:
                    self.send_header("X-Inference-Provider", stand_in.serves)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for event in ({"type": "response.created", "response": {"id": "resp"}},
                              {"type": "response.output_item.done", "output_index": 0, "item": item},
                              {"type": "response.completed", "response": {"id": "resp", "usage": usage}}):
                    self.wfile.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
                    self.wfile.flush()
                self.close_connection = True

            def _authorized(self) -> bool:
                if stand_in.key is None or self.headers.get("Authorization") == f"Bearer {stand_in.key}":
                    return True
                self._send(401, {"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error",
                                           "code": "invalid_api_key"}})
                return False

            def do_GET(self):
                if self.path.rstrip("/") != "/v1/models":
                    return self._send(404, {"error": {"message": "Not found", "type": "invalid_request_error"}})
                if stand_in.list_answers is not None:
                    if stand_in.list_answers <= 0:
                        return self._send(503, {"error": "The model list is unavailable."})
                    stand_in.list_answers -= 1
                if stand_in.router_providers is not None or self._authorized():  # the router lists without a token
                    self._send(200, {"object": "list", "data": [stand_in.model_entry()]})

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                stand_in.requests.append({"path": self.path, "body": body,
                                          "authorization": self.headers.get("Authorization")})
                if self.path.rstrip("/") == "/v1/responses" and self._authorized():
                    return self._respond(body)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    return self._send(404, {"error": {"message": "Not found", "type": "invalid_request_error"}})
                if not self._authorized():
                    return
                while stand_in.hang:
                    time.sleep(0.1)
                messages = body.get("messages") or []
                if body.get("stream") and not stand_in.garbage:
                    return self._stream_chat(body, messages)
                if body.get("tools") and not stand_in.garbage:  # a tool-calling agent (mini-swe-agent's bash tool)
                    message = stand_in.next_tool_call(messages, body.get("tools"))
                    finish = "tool_calls" if message.get("tool_calls") else "stop"
                else:
                    content = "I am not sure what to do." if stand_in.garbage else stand_in.next_reply(messages)
                    message, finish = {"role": "assistant", "content": content}, "stop"
                self._send(200, {
                    "id": f"chatcmpl-{len(stand_in.requests)}", "object": "chat.completion", "created": int(time.time()),
                    "model": body.get("model") or stand_in.model,
                    "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                    "usage": {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150},
                })

        return Handler
