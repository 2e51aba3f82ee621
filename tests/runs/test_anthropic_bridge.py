"""Claude Code's Messages requests become chat completions for the visitor's endpoint, and the answers come back as
the Messages stream it reads: checked against messages written out by hand, then through a real relay."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from rlx.runs import anthropic_bridge
from rlx.runs.egress import Egress
from rlx.runs.model_relay import ModelRelay
from tests.stand_ins.model import ModelStandIn, bash

SCHEMA = {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}
# What Claude Code sends on its second turn: system blocks, its tools (one of them Anthropic's own server tool),
# the assistant's thinking, text and tool_use, then the tool's result and a user remark in one user turn.
CLAUDE_ASKS = {
    "model": "stand-in-model", "max_tokens": 32000, "stream": True, "temperature": 1,
    "system": [{"type": "text", "text": "You are Claude Code.", "cache_control": {"type": "ephemeral"}},
               {"type": "text", "text": "Work in /app."}],
    "metadata": {"user_id": "session-1"},
    "thinking": {"type": "enabled", "budget_tokens": 1000},
    "tools": [{"name": "Bash", "description": "Runs a command.", "input_schema": SCHEMA},
              {"type": "web_search_20250305", "name": "web_search"}],
    "messages": [
        {"role": "user", "content": [{"type": "text", "text": "Summarize the log."}]},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Look first.", "signature": "sig"},
            {"type": "text", "text": "I will look."},
            {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "access.log"}]},
            {"type": "text", "text": "Go on."}]},
    ],
}
ENDPOINT_GETS = {
    "model": "stand-in-model", "max_tokens": 32000, "temperature": 1, "user": "session-1", "stream": False,
    "tools": [{"type": "function", "function": {"name": "Bash", "description": "Runs a command.",
                                                "parameters": SCHEMA}}],
    "messages": [
        {"role": "system", "content": "You are Claude Code.\nWork in /app."},
        {"role": "user", "content": "Summarize the log."},
        {"role": "assistant", "content": "I will look.", "tool_calls": [
            {"id": "toolu_1", "type": "function", "function": {"name": "Bash", "arguments": {"command": "ls"}}}]},
        {"role": "tool", "tool_call_id": "toolu_1", "content": "access.log"},
        {"role": "user", "content": "Go on."},
    ],
}
ENDPOINT_ANSWERS = {
    "id": "chatcmpl-7", "object": "chat.completion", "created": 1, "model": "provider/some-name",
    "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": "Counting the lines.",
        "tool_calls": [{"id": "call_2", "type": "function",
                        "function": {"name": "Bash", "arguments": "{\"command\": \"wc -l access.log\"}"}}]}}],
    "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150},
}
CLAUDE_GETS = {
    "type": "message", "role": "assistant", "model": "stand-in-model",
    "content": [{"type": "text", "text": "Counting the lines."},
                {"type": "tool_use", "id": "call_2", "name": "Bash", "input": {"command": "wc -l access.log"}}],
    "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 120, "output_tokens": 30},
}
CLAUDE_STREAM = [
    ("message_start", {"type": "message_start", "message": {
        "type": "message", "role": "assistant", "model": "stand-in-model", "content": [], "stop_reason": None,
        "stop_sequence": None, "usage": {"input_tokens": 120, "output_tokens": 0}}}),
    ("content_block_start", {"type": "content_block_start", "index": 0,
                             "content_block": {"type": "text", "text": ""}}),
    ("content_block_delta", {"type": "content_block_delta", "index": 0,
                             "delta": {"type": "text_delta", "text": "Counting the lines."}}),
    ("content_block_stop", {"type": "content_block_stop", "index": 0}),
    ("content_block_start", {"type": "content_block_start", "index": 1, "content_block": {
        "type": "tool_use", "id": "call_2", "name": "Bash", "input": {}}}),
    ("content_block_delta", {"type": "content_block_delta", "index": 1, "delta": {
        "type": "input_json_delta", "partial_json": "{\"command\": \"wc -l access.log\"}"}}),
    ("content_block_stop", {"type": "content_block_stop", "index": 1}),
    ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                       "usage": {"output_tokens": 30}}),
    ("message_stop", {"type": "message_stop"}),
]


def _arguments_read(chat: dict) -> dict:
    """The request with each tool call's arguments parsed (a JSON string's spacing is nobody's business)."""
    for message in chat["messages"]:
        for call in message.get("tool_calls") or []:
            call["function"]["arguments"] = json.loads(call["function"]["arguments"])
    return chat


def _without_id(message: dict) -> dict:
    assert message.pop("id").startswith("msg_")
    return message


def _events(raw: bytes) -> list[tuple[str, dict]]:
    found = []
    for chunk in raw.decode().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in chunk.splitlines() if ": " in line)
        if lines:
            found.append((lines["event"], json.loads(lines["data"])))
    return found


def test_a_messages_request_becomes_the_chat_request_an_openai_compatible_server_reads():
    chat, names = anthropic_bridge.chat_request(json.loads(json.dumps(CLAUDE_ASKS)))
    assert _arguments_read(chat) == ENDPOINT_GETS
    assert names == {}


def test_a_chat_answer_becomes_the_messages_answer_and_stream_claude_code_reads():
    answer = anthropic_bridge.messages_answer(json.loads(json.dumps(ENDPOINT_ANSWERS)), {}, "stand-in-model")
    assert _without_id(dict(answer)) == CLAUDE_GETS
    events = _events(b"".join(anthropic_bridge.sse_events(answer)))
    events[0][1]["message"].pop("id")
    assert events == CLAUDE_STREAM


def test_a_plain_answer_ends_the_turn_and_a_cut_one_says_it_ran_out_of_tokens():
    for finish, stop in (("stop", "end_turn"), ("length", "max_tokens")):
        given = {**ENDPOINT_ANSWERS, "choices": [{"index": 0, "finish_reason": finish,
                                                  "message": {"role": "assistant", "content": "Done."}}]}
        answer = anthropic_bridge.messages_answer(given, {}, "m")
        assert answer["content"] == [{"type": "text", "text": "Done."}] and answer["stop_reason"] == stop


def test_a_tool_name_too_long_for_openai_is_shortened_there_and_given_back_whole():
    long_name = "mcp__rlx_environment__" + "read_the_task_files_" * 3
    asks = {**CLAUDE_ASKS, "tools": [{"name": long_name, "description": "Reads.", "input_schema": SCHEMA}],
            "messages": CLAUDE_ASKS["messages"][:1]}
    chat, names = anthropic_bridge.chat_request(json.loads(json.dumps(asks)))
    sent = chat["tools"][0]["function"]["name"]
    assert len(long_name) > 64 >= len(sent) and names == {sent: long_name}
    call = {"id": "call_3", "type": "function", "function": {"name": sent, "arguments": "{}"}}
    given = {**ENDPOINT_ANSWERS, "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": None, "tool_calls": [call]}}]}
    answer = anthropic_bridge.messages_answer(given, names, "m")
    assert [b.get("name") for b in answer["content"] if b["type"] == "tool_use"] == [long_name]


def _post_over(socket_path, path: str, body: dict, headers: dict) -> tuple[int, bytes]:
    data = json.dumps(body).encode()
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    with socket.socket(socket.AF_UNIX) as connection:
        connection.settimeout(60)
        connection.connect(str(socket_path))
        connection.sendall(f"POST {path} HTTP/1.1\r\nHost: relay\r\nContent-Type: application/json\r\n{head}"
                           f"Content-Length: {len(data)}\r\n\r\n".encode() + data)
        raw = b""
        while chunk := connection.recv(65536):
            raw += chunk
    status_line, _, rest = raw.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


def test_the_relay_answers_claude_codes_stream_from_the_chat_endpoint_with_the_visitors_key():
    key = "sk-standin-bridge-0123456789"
    model = ModelStandIn([bash("ls /app")], key=key).start()
    relay = ModelRelay(model.url, key, Egress(allow_loopback=True)).start()
    try:
        status, body = _post_over(relay.socket_path, "/v1/messages", CLAUDE_ASKS,
                                  {"x-api-key": "held-by-the-relay", "anthropic-version": "2023-06-01"})
        refused = _post_over(relay.socket_path, "/v1/messages", {"messages": "no"}, {})
    finally:
        relay.stop()
        model.stop()
    assert status == 200
    events = _events(body)
    assert [e for e, _ in events][:2] == ["message_start", "content_block_start"] and events[-1][0] == "message_stop"
    tool = next(d["content_block"] for e, d in events if e == "content_block_start"
                and d["content_block"]["type"] == "tool_use")
    assert tool["name"] == "Bash"  # the tool Claude Code offered
    assert [d["delta"]["partial_json"] for e, d in events if d.get("delta", {}).get("type") == "input_json_delta"] \
        == [json.dumps({"command": "ls /app"})]
    # asked once whether the endpoint speaks Messages itself (the stand-in does not: 404), then as chat completions
    probe, asked = model.requests
    assert probe["path"] == "/v1/messages" and probe["authorization"] == f"Bearer {key}"
    assert asked["path"] == "/v1/chat/completions" and asked["authorization"] == f"Bearer {key}"
    assert asked["body"]["messages"][-1] == {"role": "user", "content": "Go on."}
    assert relay.usage() == {"input_tokens": 100, "output_tokens": 50}
    assert refused[0] == 400 and json.loads(refused[1])["type"] == "error"


def _messages_server(answer: dict, seen: list):
    """An endpoint that speaks Anthropic's Messages API itself (as some gateways and servers do)."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            seen.append({"path": self.path, "x-api-key": self.headers.get("x-api-key"),
                         "body": json.loads(self.rfile.read(int(self.headers["Content-Length"])))})
            data = json.dumps(answer).encode()
            self.send_response(200 if self.path == "/v1/messages" else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_an_endpoint_that_speaks_messages_itself_gets_claude_codes_requests_as_they_are():
    key, seen = "sk-ant-standin-0123456789", []
    native = {**CLAUDE_GETS, "id": "msg_native"}
    server = _messages_server(native, seen)
    relay = ModelRelay(f"http://127.0.0.1:{server.server_address[1]}/v1", key, Egress(allow_loopback=True)).start()
    asks = {**CLAUDE_ASKS, "stream": False}
    try:
        first = _post_over(relay.socket_path, "/v1/messages", asks, {"x-api-key": "held-by-the-relay"})
        second = _post_over(relay.socket_path, "/v1/messages", asks, {"x-api-key": "held-by-the-relay"})
    finally:
        relay.stop()
        server.shutdown()
    assert first == second == (200, json.dumps(native).encode())
    assert [(s["path"], s["x-api-key"]) for s in seen] == [("/v1/messages", key)] * 2
    assert seen[0]["body"] == asks  # thinking, server tools and all: nothing translated
    assert relay.usage() == {"input_tokens": 240, "output_tokens": 60}
