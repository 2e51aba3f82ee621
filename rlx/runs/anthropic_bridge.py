"""Anthropic's Messages API over an OpenAI-compatible endpoint: how Claude Code reaches the visitor's model.

Claude Code asks only for POST /v1/messages; a visitor brings an endpoint that answers chat completions (theirs,
or HF Inference Providers' router). The run's model relay (rlx/runs/model_relay.py) turns each Messages request
into one chat-completions request and the answer back into a Messages answer, here.

The two translations are litellm's (its Anthropic adapter, installed with Harbor: system blocks, tool_use and
tool_result turns, tools and tool_choice, stop reasons, usage), called as plain functions: litellm's own call
path (its router, logging, cost-map fetches, and, for `openai/` models, the Responses API) stays out, so the
relay's egress checks and key handling hold. What is ours: keeping to the fields every chat-completions server
accepts, asking for one whole answer, and replaying it as the Messages stream Claude Code reads
(message_start, content_block_start/delta/stop per block, message_delta, message_stop).
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # importing litellm fetches no price list then

# What a Messages request may carry into the translation. `thinking` is left out: litellm would turn it into a
# `reasoning_effort` that many chat-completions servers refuse.
_MESSAGES_FIELDS = ("model", "messages", "system", "tools", "tool_choice", "max_tokens", "temperature", "top_p",
                    "stop_sequences", "metadata")
_CHAT_FIELDS = ("model", "messages", "tools", "tool_choice", "max_tokens", "temperature", "top_p", "stop", "user")
_MESSAGE_FIELDS = ("role", "content", "tool_calls", "tool_call_id", "name")


def chat_request(body: dict) -> tuple[dict, dict[str, str]]:
    """The chat-completions request for a Messages request `body`, and the map of tool names litellm shortened
    (an OpenAI tool name is at most 64 characters) back to Claude Code's. ValueError when `body` is not one."""
    from litellm.llms.anthropic.messages.adapters.transformation import AnthropicAdapter

    if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or not body.get("model"):
        raise ValueError("A Messages request needs a model and a list of messages.")
    given = {k: body[k] for k in _MESSAGES_FIELDS if body.get(k) is not None}
    if isinstance(given.get("tools"), list):  # Anthropic's own server tools (web search) have no schema to offer
        given["tools"] = [t for t in given["tools"] if isinstance(t, dict) and "input_schema" in t] or None
    given = {k: v for k, v in given.items() if v is not None}
    translated, names = AnthropicAdapter().translate_completion_input_params_with_tool_mapping(given)
    chat = {k: translated[k] for k in _CHAT_FIELDS if translated.get(k) is not None}
    chat["messages"] = [_plain(m) for m in translated["messages"]]
    chat["stream"] = False
    return chat, names


def _plain(message: dict) -> dict:
    """A chat message with only the standard fields (litellm adds its own, such as thinking_blocks), and text-only
    content as one string, which every server reads."""
    kept = {k: message[k] for k in _MESSAGE_FIELDS if message.get(k) is not None}
    content = kept.get("content")
    if isinstance(content, list) and all(isinstance(p, dict) and p.get("type") == "text" for p in content):
        kept["content"] = "\n".join(str(p.get("text") or "") for p in content)
    if kept.get("role") == "assistant" and "content" not in kept:
        kept["content"] = None
    return kept


def messages_answer(chat_answer: dict, names: dict[str, str], model: str) -> dict:
    """The Messages answer for a chat-completions answer; ValueError when it holds no choice."""
    from litellm import ModelResponse
    from litellm.llms.anthropic.messages.adapters.transformation import AnthropicAdapter

    if not isinstance(chat_answer, dict) or not chat_answer.get("choices"):
        raise ValueError("The model endpoint's answer holds no choices.")
    answer = dict(AnthropicAdapter().translate_completion_output_params(ModelResponse(**chat_answer), names))
    answer["model"] = model  # the name Claude Code asked for, whatever the endpoint calls it
    answer["id"] = f"msg_{uuid.uuid4().hex[:24]}"
    answer["content"] = [dict(b) for b in answer.get("content") or []] or [{"type": "text", "text": ""}]
    answer["usage"] = {"input_tokens": int((answer.get("usage") or {}).get("input_tokens") or 0),
                       "output_tokens": int((answer.get("usage") or {}).get("output_tokens") or 0)}
    answer.pop("stop_details", None)
    return json.loads(json.dumps(answer, default=str))


def sse_events(answer: dict) -> Iterator[bytes]:
    """A whole Messages answer as the stream of server-sent events a streaming request gets."""
    usage = answer.get("usage") or {}
    start = {**answer, "content": [], "stop_reason": None, "stop_sequence": None,
             "usage": {"input_tokens": usage.get("input_tokens", 0), "output_tokens": 0}}
    yield _event("message_start", {"message": start})
    for index, block in enumerate(answer.get("content") or []):
        if block.get("type") == "tool_use":
            opening = {"type": "tool_use", "id": block.get("id"), "name": block.get("name"), "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block.get("input") or {})}
        elif block.get("type") == "thinking":
            opening = {"type": "thinking", "thinking": "", "signature": ""}
            delta = {"type": "thinking_delta", "thinking": block.get("thinking") or ""}
        else:
            opening = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block.get("text") or ""}
        yield _event("content_block_start", {"index": index, "content_block": opening})
        yield _event("content_block_delta", {"index": index, "delta": delta})
        yield _event("content_block_stop", {"index": index})
    yield _event("message_delta", {"delta": {"stop_reason": answer.get("stop_reason") or "end_turn",
                                             "stop_sequence": answer.get("stop_sequence")},
                                   "usage": {"output_tokens": usage.get("output_tokens", 0)}})
    yield _event("message_stop", {})


def _event(kind: str, data: dict) -> bytes:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode()


def error_body(status: int, message: str) -> dict:
    """An error as the Messages API words one, so Claude Code shows the sentence."""
    kind = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error",
            429: "rate_limit_error"}.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}}
