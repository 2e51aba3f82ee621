"""Agent session files, one session a file, as the Hub's trace viewer reads them (hub-docs agent-traces.md and
session-traces-format.md; the Pi format's own spec, earendil-works/pi coding-agent docs/session-format.md):

- Session Trace Simple (STS): a first line `{"type": "session", "harness": ...}`, then `{"type": "message",
  "message": {role, content, toolCalls: [{id, function: {name, arguments}}], toolCallId}}` lines.
- Pi: a first line `{"type": "session", ...}` without a harness, then `{"type": "message", "message": {role:
  user | assistant | toolResult, content: [{type: text | thinking | toolCall, ...}], toolCallId}}`.
- Claude Code: `{"type": "user" | "assistant", "sessionId", "message": {role, content: text or blocks of text,
  tool_use {id, name, input}, tool_result {tool_use_id, content}, thinking}}`.
- Codex: `{"type": "session_meta" | "response_item" | "event_msg", "payload": {...}}`; response items are
  Responses API items (message, function_call, function_call_output, reasoning).
"""

from __future__ import annotations

from typing import Any

from rlx.adapters.rows.processors import common as c

FORMATS = {"sts": "a session (Session Trace Simple format)", "pi": "a Pi session",
           "claude-code": "a Claude Code session", "codex": "a Codex session"}


def detect(first: dict) -> str | None:
    kind = first.get("type")
    if kind == "session":
        return "sts" if first.get("harness") else "pi"
    if kind in ("session_meta", "response_item", "turn_context") and isinstance(first.get("payload"), dict):
        return "codex"
    if first.get("sessionId") and kind in ("user", "assistant", "summary", "system"):
        return "claude-code"
    return None


def messages_of(fmt: str, lines: list[Any]) -> tuple[list[dict], str | None]:
    """The session's lines as chat messages that `turns` reads, and the model when a line names it."""
    out, model = [], None
    for line in lines:
        if not isinstance(line, dict):
            continue
        if fmt == "codex":
            payload = line.get("payload") if line.get("type") == "response_item" else None
            if isinstance(payload, dict):
                out += responses_items([payload])
            elif line.get("type") == "turn_context" and isinstance(line.get("payload"), dict):
                model = model or line["payload"].get("model")
            continue
        message = line.get("message")
        if not isinstance(message, dict):
            continue
        model = model or (message.get("model") if isinstance(message.get("model"), str) else None)
        if fmt == "claude-code":
            out += _claude(message)
        else:
            out += _pi_or_sts(message)
    return out, model if isinstance(model, str) else None


def _claude(message: dict) -> list[dict]:
    role, content = message.get("role"), message.get("content")
    if isinstance(content, str):
        return [{"role": role, "content": content}]
    text, calls, results = [], [], []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            text.append(str(block.get("text") or ""))
        elif kind == "thinking":
            text.append(f"(thinking) {block.get('thinking') or ''}")
        elif kind == "tool_use":
            calls.append({"id": block.get("id"), "function": {"name": block.get("name"),
                                                               "arguments": block.get("input")}})
        elif kind == "tool_result":
            results.append({"role": "tool", "tool_call_id": block.get("tool_use_id"),
                            "content": c.content_text(block.get("content"))})
    out = [{"role": role, "content": "\n".join(text), "tool_calls": calls}] if text or calls else []
    return results + out


def _pi_or_sts(message: dict) -> list[dict]:
    role = message.get("role")
    if role == "toolResult":
        return [{"role": "tool", "tool_call_id": message.get("toolCallId"),
                 "content": c.content_text(message.get("content"))}]
    content = message.get("content")
    calls = [call for call in message.get("toolCalls") or [] if isinstance(call, dict)]  # STS
    text = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "toolCall":  # Pi
            calls.append({"id": block.get("id"), "function": {"name": block.get("name"),
                                                               "arguments": block.get("arguments")}})
        elif isinstance(block, dict) and block.get("type") == "thinking":
            text.append(f"(thinking) {block.get('thinking') or ''}")
        elif isinstance(block, dict):
            text.append(str(block.get("text") or ""))
    body = content if isinstance(content, str) else "\n".join(text)
    if message.get("reasoningContent"):
        body = f"(reasoning) {message['reasoningContent']}\n\n{body}"
    turn = {"role": role, "content": body, "tool_calls": calls}
    if message.get("toolCallId"):  # STS: a tool message answers its call by id
        turn["tool_call_id"] = message["toolCallId"]
    return [turn]


def responses_items(items: Any) -> list[dict]:
    """Responses API items (NeMo Gym, Codex) as chat messages that `turns` reads."""
    out = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind in ("function_call", "custom_tool_call", "local_shell_call"):
            arguments = item.get("arguments", item.get("input", item.get("action", "")))
            out.append({"role": "assistant", "content": "", "tool_calls": [
                {"id": item.get("call_id") or item.get("id"),
                 "function": {"name": item.get("name") or kind, "arguments": arguments}}]})
        elif kind in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
            out.append({"role": "tool", "tool_call_id": item.get("call_id"), "content": c.as_text(item.get("output"))})
        elif kind == "reasoning":
            summary = item.get("summary") or item.get("content") or []
            text = c.content_text(summary) if isinstance(summary, list) else c.as_text(summary)
            if text.strip():
                out.append({"role": "assistant", "content": f"(reasoning) {text}"})
        elif "role" in item:
            role = "system" if item["role"] == "developer" else item["role"]
            out.append({"role": role, "content": c.content_text(item.get("content", ""))})
    return out
